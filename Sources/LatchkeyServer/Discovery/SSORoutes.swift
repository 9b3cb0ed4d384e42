import Hummingbird

/// `/sso` and `/sso/saml/…`: SAML single sign-on is not served, and these answer what GoTrue
/// answers while SAML is disabled (its `requireSAMLEnabled`): 404 `saml_provider_disabled`.
/// supabase-js's `signInWithSSO` then reports GoTrue's own error instead of a bare 404.
struct SSORoutes: AuthFeature {
    init(_ dependencies: FeatureDependencies) {}

    func register(on router: Router<AuthRequestContext>) {
        router.post("/sso") { _, _ -> Response in throw AuthError.samlDisabled }
        router.get("/sso/saml/metadata") { _, _ -> Response in throw AuthError.samlDisabled }
        router.post("/sso/saml/acs") { _, _ -> Response in throw AuthError.samlDisabled }
    }
}
