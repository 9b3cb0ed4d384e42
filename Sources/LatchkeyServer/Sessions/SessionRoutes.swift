import Foundation
import Hummingbird

/// `POST /signup`, `POST /token` and `POST /logout`: creating, renewing and ending sessions.
struct SessionRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        router.post("/signup") { request, context in
            let body = try await JSONBody.decode(SignUpBody.self, from: request, context: context)
            let redirect = request.uri.queryParameters.get("redirect_to")
            return try JSONBody.response(try await service.signUp.signUp(body, queryRedirect: redirect, ipAddress: context.clientIP))
        }
        let grants = service.grants
        router.post("/token") { request, context in
            let grant = try grants.handler(for: request.uri.queryParameters.get("grant_type"))
            return try JSONBody.response(try await grant(request, context))
        }
        router.post("/logout") { request, context in
            let scope = try Logout.Scope(parsing: request.uri.queryParameters.get("scope"))
            let signedIn = try await service.authentication.user(bearer: request.bearerToken())
            try await service.logout.logOut(signedIn, scope: scope, ipAddress: context.clientIP)
            return Response(status: .noContent)
        }
    }
}
