import Foundation
import Hummingbird
import LatchkeyWire

/// GoTrue's OAuth 2.1 server: Latchkey as the identity provider other apps, web sites and
/// agents sign their users in with.
///
/// Off by default: every route answers 404 `feature_disabled` then, as GoTrue's
/// `requireOAuthServerEnabled`, after the caller's check where GoTrue checks it first (an
/// administrator key, a signed-in user). Served: the client registry (`/admin/oauth/clients…`,
/// and `POST /oauth/clients/register` with dynamic registration on, rate limited). The
/// authorization flow, tokens, user info, discovery and the user's grants answer 501
/// `not_implemented` while the server is on: they are not built yet.
struct OAuthServerRoutes: AuthFeature {
    let authentication: BearerAuthentication
    let settings: OAuthServerSettings
    let limits: RateLimits
    let clients: OAuthClients

    init(_ dependencies: FeatureDependencies) {
        authentication = dependencies.authentication
        settings = dependencies.configuration.oauthServer
        limits = dependencies.limits
        clients = OAuthClients(store: dependencies.store, clock: dependencies.clock)
    }

    func register(on router: Router<AuthRequestContext>) {
        let enabled = FeatureSwitchMiddleware(enabled: settings.enabled, refusal: .oauthServerDisabled)
        let notBuilt: @Sendable (Request, AuthRequestContext) async throws -> Response = { _, _ in
            throw AuthError(.notImplemented, "not_implemented", "This part of the OAuth server is not served yet")
        }
        let open = router.group().add(middleware: enabled)
        open.get("/.well-known/oauth-authorization-server", use: notBuilt)
        open.post("/oauth/token", use: notBuilt)
        open.get("/oauth/userinfo", use: notBuilt)
        open.get("/oauth/authorize", use: notBuilt)
        open.get("/oauth/authorizations/:authorization_id", use: notBuilt)
        open.post("/oauth/authorizations/:authorization_id/consent", use: notBuilt)

        // GoTrue's order: enabled, the rate limit, then whether clients may register themselves.
        let dynamicRegistration = settings.allowDynamicRegistration
        open.group().add(middleware: RateLimitMiddleware { [limits] in try await limits.admitOAuthClientRegistration(from: $0) })
            .post("/oauth/clients/register") { request, context in
                guard dynamicRegistration else { throw AuthError.dynamicRegistrationDisabled }
                let body = try await request.decode(as: OAuthClientBody.self, context: context)
                return try await clients.register(body, registration: .dynamic).response(from: request, context: context, status: .created)
            }

        let grants = router.group("/user/oauth/grants").add(middleware: SignedInUserMiddleware(authentication: authentication))
            .add(middleware: enabled)
        grants.get(use: notBuilt)
        grants.delete(use: notBuilt)

        let admin = router.group("/admin/oauth/clients").add(middleware: AdministratorMiddleware(authentication: authentication))
            .add(middleware: enabled)
        admin.post { request, context in
            let body = try await request.decode(as: OAuthClientBody.self, context: context)
            return try await clients.register(body, registration: .manual).response(from: request, context: context, status: .created)
        }
        admin.get { _, _ in try await clients.list() }
        admin.get(":client_id") { _, context in OAuthClientResponse(try await clients.client(try context.oauthClientID())) }
        admin.put(":client_id") { request, context in
            let id = try context.oauthClientID()
            let body = try await request.decode(as: OAuthClientBody.self, context: context)
            return try await clients.update(id, with: body)
        }
        admin.delete(":client_id") { _, context in
            try await clients.delete(try context.oauthClientID())
            return Response(status: .noContent)
        }
        admin.post(":client_id/regenerate_secret") { _, context in
            try await clients.regenerateSecret(try context.oauthClientID())
        }
    }
}

extension AuthRequestContext {
    /// The client id in the path: 400 `validation_failed` "invalid client_id format" when it is
    /// not a UUID, as GoTrue.
    func oauthClientID() throws(AuthError) -> UUID {
        guard let text = parameters.get("client_id"), let id = UUID(uuidString: text) else { throw .oauthClientIDInvalid }
        return id
    }
}
