import Foundation
import Hummingbird

/// `POST /signup`, `POST /token` and `POST /logout`: creating, renewing and ending sessions.
struct SessionRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        router.post("/signup") { request, context in
            let body = try await JSONBody.decode(SignUpBody.self, from: request, context: context)
            let redirect = request.uri.queryParameters.get("redirect_to")
            let response = try await answeringMailFailure(.confirmation, logger: context.logger) {
                try await service.signUp.signUp(body, queryRedirect: redirect, ipAddress: context.clientIP)
            }
            return try JSONBody.response(response)
        }
        router.post("/token") { request, context in
            switch request.uri.queryParameters.get("grant_type") {
            case "password":
                let body = try await JSONBody.decode(PasswordGrantBody.self, from: request, context: context)
                return try JSONBody.response(try await service.passwordGrant.signIn(body, ipAddress: context.clientIP))
            case "refresh_token":
                let body = try await JSONBody.decode(RefreshGrantBody.self, from: request, context: context)
                return try JSONBody.response(try await service.refreshGrant.refresh(body, ipAddress: context.clientIP))
            case nil:
                throw AuthError(.badRequest, "validation_failed", "grant_type is required: password or refresh_token")
            case let other?:
                throw AuthError(.badRequest, "unsupported_grant_type", "Unsupported grant_type \"\(other.prefix(40))\": use password or refresh_token")
            }
        }
        router.post("/logout") { request, context in
            let scope = try Logout.Scope(parsing: request.uri.queryParameters.get("scope"))
            let signedIn = try await service.authentication.user(bearer: request.bearerToken())
            try await service.logout.logOut(signedIn, scope: scope, ipAddress: context.clientIP)
            return Response(status: .noContent)
        }
    }
}
