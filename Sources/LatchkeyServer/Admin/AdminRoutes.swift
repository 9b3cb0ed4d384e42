import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyWire

/// `/admin/...`: user management, invitations and the audit log, for holders of a `service_role`
/// key only (each feature registers its own administrator routes beside: factors, passkeys,
/// custom providers).
/// The route group's ``AdministratorMiddleware`` checks the key before anything else of the
/// request is read.
struct AdminRoutes: AuthFeature {
    let authentication: BearerAuthentication
    /// `/admin/users…`.
    let adminUsers: AdminUsers
    /// `GET /admin/audit`.
    let auditLog: AuditLog
    /// `POST /invite` and `POST /admin/generate_link`.
    let invitations: Invitations

    init(_ dependencies: FeatureDependencies) {
        authentication = dependencies.authentication
        adminUsers = AdminUsers(
            store: dependencies.store, clock: dependencies.clock, passwords: dependencies.passwords,
            adminRoles: dependencies.configuration.jwtAdminRoles, logger: dependencies.logger)
        auditLog = AuditLog(store: dependencies.store)
        invitations = Invitations(shared: dependencies.shared, emailLinks: dependencies.emailLinks)
    }

    func register(on router: Router<AuthRequestContext>) {
        let admin = router.group("/admin").add(middleware: AdministratorMiddleware(authentication: authentication))
        admin.get("users") { request, _ in
            let page = try page(request)
            let query = request.uri.queryParameters
            let listing = try UserListing(sort: query.getAll("sort"), filter: query.get("filter"))
            let (users, total) = try await adminUsers.list(page, listing: listing)
            return try JSONBody.response(
                users, headers: PaginationHeaders.fields(path: request.uri.path, query: request.uri.query, page: page, total: total))
        }
        admin.post("users") { request, context in
            let body = try await request.decode(as: AdminUserBody.self, context: context)
            return try await adminUsers.create(body, ipAddress: context.clientIP)
        }
        admin.get("users/:id") { _, context in
            try await adminUsers.user(context.userID())
        }
        admin.put("users/:id") { request, context in
            let id = try context.userID()
            let body = try await request.decode(as: AdminUserBody.self, context: context)
            return try await adminUsers.update(id, with: body, ipAddress: context.clientIP)
        }
        admin.delete("users/:id") { _, context in
            try await adminUsers.delete(context.userID(), ipAddress: context.clientIP)
            return EmptyResponse()
        }
        admin.post("users/:id/logout") { _, context in
            try await adminUsers.logOut(context.userID(), ipAddress: context.clientIP)
            return Response(status: .noContent)
        }
        admin.get("audit") { request, _ in
            try await auditLog.entries(try page(request))
        }
        // The two administrator routes of the email flows (EmailLinkRoutes' use cases).
        admin.post("generate_link") { request, context in
            let body = try await request.decode(as: GenerateLinkBody.self, context: context)
            return try await invitations.generateLink(body, ipAddress: context.clientIP)
        }
        router.group().add(middleware: AdministratorMiddleware(authentication: authentication))
            .post("/invite") { request, context in
                let body = try await request.decode(as: InviteBody.self, context: context)
                let redirect = request.uri.queryParameters.get("redirect_to")
                return try await invitations.invite(body, queryRedirect: redirect, ipAddress: context.clientIP)
            }
    }

    private func page(_ request: Request) throws(AuthError) -> Page {
        let query = request.uri.queryParameters
        return try Page(page: query.get("page"), perPage: query.get("per_page"))
    }
}
