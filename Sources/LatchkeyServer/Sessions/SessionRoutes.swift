import Foundation
import Hummingbird
import LatchkeyWire

/// `POST /signup`, `POST /token` and `POST /logout`: creating, renewing and ending sessions.
struct SessionRoutes: AuthFeature {
    let dependencies: FeatureDependencies
    /// `POST /signup`.
    let signUp: SignUp
    /// `POST /token`: every grant type in ``TokenGrants/all``.
    let grants: TokenGrants
    /// `POST /logout`.
    let logout: Logout

    init(_ dependencies: FeatureDependencies) {
        let configuration = dependencies.configuration
        self.dependencies = dependencies
        signUp = SignUp(
            shared: dependencies.shared, emailLinks: dependencies.emailLinks,
            settings: SignUp.Settings(
                disabled: configuration.disableSignup, autoconfirm: configuration.autoconfirm,
                anonymousUsers: configuration.enableAnonymousUsers, emailEnabled: configuration.emailEnabled),
            phone: dependencies.phoneCodes.map { PhoneSignUp(shared: dependencies.shared, codes: $0) })
        grants = TokenGrants(dependencies)
        logout = Logout(store: dependencies.store, clock: dependencies.clock)
    }

    func register(on router: Router<AuthRequestContext>) {
        // A sign-up with an address that has an account sends nothing: ResponsePadding.
        router.group().add(middleware: dependencies.padding("signup")).post("/signup") { request, context in
            let body = try await request.decode(as: SignUpBody.self, context: context)
            let redirect = request.uri.queryParameters.get("redirect_to")
            let outcome = try await signUp.signUp(body, queryRedirect: redirect, ipAddress: context.clientIP)
            // A session is a new account's (or an anonymous one's): that answer has nothing to hide.
            if case .session = outcome { ResponsePadding.markExempt() }
            return outcome
        }
        router.post("/token") { request, context in
            let grant = try grants.handler(for: request.uri.queryParameters.get("grant_type"))
            return try await grant(request, context)
        }
        router.group().add(middleware: SignedInUserMiddleware(authentication: dependencies.authentication)).post("/logout") { request, context in
            let scope = try Logout.Scope(parsing: request.uri.queryParameters.get("scope"))
            try await logout.logOut(try context.signedIn(), scope: scope, ipAddress: context.clientIP)
            return Response(status: .noContent)
        }
    }
}
