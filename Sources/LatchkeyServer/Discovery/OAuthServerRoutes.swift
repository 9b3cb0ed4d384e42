import Hummingbird

/// The routes of GoTrue's OAuth 2.1 server (Supabase Auth as an authorization server for other
/// apps) and of its SCIM server: Latchkey serves neither, and these answer what GoTrue answers
/// while they are disabled (its `requireOAuthServerEnabled` and `requireScimServerEnabled`): 404
/// `feature_disabled`. A client's `admin.oauth.*` call then reports GoTrue's own error instead of
/// a bare 404. As in GoTrue, the signed-in and administrator routes check the caller first.
struct OAuthServerRoutes: AuthFeature {
    let authentication: BearerAuthentication

    init(_ dependencies: FeatureDependencies) {
        authentication = dependencies.authentication
    }

    func register(on router: Router<AuthRequestContext>) {
        let refuse: @Sendable (Request, AuthRequestContext) async throws -> Response = { _, _ in throw AuthError.oauthServerDisabled }
        router.get("/.well-known/oauth-authorization-server", use: refuse)
        router.post("/oauth/clients/register", use: refuse)
        router.post("/oauth/token", use: refuse)
        router.get("/oauth/userinfo", use: refuse)
        router.get("/oauth/authorize", use: refuse)
        router.get("/oauth/authorizations/:authorization_id", use: refuse)
        router.post("/oauth/authorizations/:authorization_id/consent", use: refuse)

        let signedIn = router.group("/user/oauth/grants").add(middleware: SignedInUserMiddleware(authentication: authentication))
        signedIn.get(use: refuse)
        signedIn.delete(use: refuse)

        let admin = router.group("/admin/oauth/clients").add(middleware: AdministratorMiddleware(authentication: authentication))
        admin.post(use: refuse)
        admin.get(use: refuse)
        admin.get(":client_id", use: refuse)
        admin.put(":client_id", use: refuse)
        admin.delete(":client_id", use: refuse)
        admin.post(":client_id/regenerate_secret", use: refuse)

        let scim: @Sendable (Request, AuthRequestContext) async throws -> Response = { _, _ in throw AuthError.scimDisabled }
        router.get("/scim/v2/ServiceProviderConfig", use: scim)
        router.get("/scim/v2/ResourceTypes", use: scim)
        router.get("/scim/v2/Schemas", use: scim)
    }
}
