import Foundation
import Hummingbird
import LatchkeyWire

/// `POST /signup`, `POST /token` and `POST /logout`: creating, renewing and ending sessions.
struct SessionRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        // A sign-up with an address that has an account sends nothing: ResponsePadding.
        router.group().add(middleware: service.padding("signup")).post("/signup") { request, context in
            let body = try await request.decode(as: SignUpBody.self, context: context)
            let redirect = request.uri.queryParameters.get("redirect_to")
            let outcome = try await service.signUp.signUp(body, queryRedirect: redirect, ipAddress: context.clientIP)
            // A session is a new account's (or an anonymous one's): that answer has nothing to hide.
            if case .session = outcome { ResponsePadding.markExempt() }
            return outcome
        }
        let grants = service.grants
        router.post("/token") { request, context in
            let grant = try grants.handler(for: request.uri.queryParameters.get("grant_type"))
            return try await grant(request, context)
        }
        router.group().add(middleware: SignedInUserMiddleware(authentication: service.authentication)).post("/logout") { request, context in
            let scope = try Logout.Scope(parsing: request.uri.queryParameters.get("scope"))
            try await service.logout.logOut(try context.signedIn(), scope: scope, ipAddress: context.clientIP)
            return Response(status: .noContent)
        }
    }
}
