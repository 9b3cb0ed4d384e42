import Foundation
import HTTPTypes
import Hummingbird

/// `/admin/...`: user management and the audit log, for holders of a `service_role` key only.
/// Every route checks the key before it reads anything else of the request.
struct AdminRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        router.get("/admin/users") { request, _ in
            try await requireAdmin(request)
            let page = try page(request)
            let (users, total) = try await service.adminUsers.list(page)
            return try JSONBody.response(
                users, headers: PaginationHeaders.fields(path: request.uri.path, query: request.uri.query, page: page, total: total))
        }
        router.post("/admin/users") { request, context in
            try await requireAdmin(request)
            let body = try await JSONBody.decode(AdminUserBody.self, from: request, context: context)
            return try JSONBody.response(try await service.adminUsers.create(body, ipAddress: context.clientIP))
        }
        router.get("/admin/users/:id") { request, context in
            try await requireAdmin(request)
            return try JSONBody.response(try await service.adminUsers.user(context.userID()))
        }
        router.put("/admin/users/:id") { request, context in
            try await requireAdmin(request)
            let id = try context.userID()
            let body = try await JSONBody.decode(AdminUserBody.self, from: request, context: context)
            return try JSONBody.response(try await service.adminUsers.update(id, with: body, ipAddress: context.clientIP))
        }
        router.delete("/admin/users/:id") { request, context in
            try await requireAdmin(request)
            try await service.adminUsers.delete(context.userID(), ipAddress: context.clientIP)
            return JSONBody.empty()
        }
        router.post("/admin/users/:id/logout") { request, context in
            try await requireAdmin(request)
            try await service.adminUsers.logOut(context.userID(), ipAddress: context.clientIP)
            return Response(status: .noContent)
        }
        router.get("/admin/users/:id/factors") { request, context in
            try await requireAdmin(request)
            return try JSONBody.response(try await service.adminFactors.list(userID: context.userID()))
        }
        router.put("/admin/users/:id/factors/:factor_id") { request, context in
            try await requireAdmin(request)
            let (userID, factorID) = (try context.userID(), try context.factorID())
            let body = try await JSONBody.decode(AdminUpdateFactorBody.self, from: request, context: context)
            return try JSONBody.response(
                try await service.adminFactors.update(userID: userID, factorID: factorID, with: body, ipAddress: context.clientIP))
        }
        router.delete("/admin/users/:id/factors/:factor_id") { request, context in
            try await requireAdmin(request)
            let (userID, factorID) = (try context.userID(), try context.factorID())
            return try JSONBody.response(try await service.adminFactors.delete(userID: userID, factorID: factorID, ipAddress: context.clientIP))
        }
        router.get("/admin/audit") { request, _ in
            try await requireAdmin(request)
            return try JSONBody.response(try await service.auditLog.entries(try page(request)))
        }
    }

    private func requireAdmin(_ request: Request) async throws {
        try await service.authentication.admin(bearer: request.bearerToken())
    }

    private func page(_ request: Request) throws(AuthError) -> Page {
        let query = request.uri.queryParameters
        return try Page(page: query.get("page"), perPage: query.get("per_page"))
    }
}
