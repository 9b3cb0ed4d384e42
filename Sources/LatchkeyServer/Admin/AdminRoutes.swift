import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyWire

/// `/admin/...`: user management and the audit log, for holders of a `service_role` key only.
/// The route group's ``AdministratorMiddleware`` checks the key before anything else of the
/// request is read.
struct AdminRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        let admin = router.group("/admin").add(middleware: AdministratorMiddleware(authentication: service.authentication))
        admin.get("users") { request, _ in
            let page = try page(request)
            let query = request.uri.queryParameters
            let listing = try UserListing(sort: query.getAll("sort"), filter: query.get("filter"))
            let (users, total) = try await service.adminUsers.list(page, listing: listing)
            return try JSONBody.response(
                users, headers: PaginationHeaders.fields(path: request.uri.path, query: request.uri.query, page: page, total: total))
        }
        admin.post("users") { request, context in
            let body = try await request.decode(as: AdminUserBody.self, context: context)
            return try await service.adminUsers.create(body, ipAddress: context.clientIP)
        }
        admin.get("users/:id") { _, context in
            try await service.adminUsers.user(context.userID())
        }
        admin.put("users/:id") { request, context in
            let id = try context.userID()
            let body = try await request.decode(as: AdminUserBody.self, context: context)
            return try await service.adminUsers.update(id, with: body, ipAddress: context.clientIP)
        }
        admin.delete("users/:id") { _, context in
            try await service.adminUsers.delete(context.userID(), ipAddress: context.clientIP)
            return EmptyResponse()
        }
        admin.post("users/:id/logout") { _, context in
            try await service.adminUsers.logOut(context.userID(), ipAddress: context.clientIP)
            return Response(status: .noContent)
        }
        admin.get("users/:id/factors") { _, context in
            try await service.adminFactors.list(userID: context.userID())
        }
        admin.put("users/:id/factors/:factor_id") { request, context in
            let (userID, factorID) = (try context.userID(), try context.factorID())
            let body = try await request.decode(as: AdminUpdateFactorBody.self, context: context)
            return try await service.adminFactors.update(userID: userID, factorID: factorID, with: body, ipAddress: context.clientIP)
        }
        admin.delete("users/:id/factors/:factor_id") { _, context in
            let (userID, factorID) = (try context.userID(), try context.factorID())
            return try await service.adminFactors.delete(userID: userID, factorID: factorID, ipAddress: context.clientIP)
        }
        admin.get("audit") { request, _ in
            try await service.auditLog.entries(try page(request))
        }
        // The two administrator routes of the email flows (EmailLinkRoutes' use cases).
        admin.post("generate_link") { request, context in
            let body = try await request.decode(as: GenerateLinkBody.self, context: context)
            return try await service.invitations.generateLink(body, ipAddress: context.clientIP)
        }
        router.group().add(middleware: AdministratorMiddleware(authentication: service.authentication))
            .post("/invite") { request, context in
                let body = try await request.decode(as: InviteBody.self, context: context)
                let redirect = request.uri.queryParameters.get("redirect_to")
                return try await service.invitations.invite(body, queryRedirect: redirect, ipAddress: context.clientIP)
            }
    }

    private func page(_ request: Request) throws(AuthError) -> Page {
        let query = request.uri.queryParameters
        return try Page(page: query.get("page"), perPage: query.get("per_page"))
    }
}
