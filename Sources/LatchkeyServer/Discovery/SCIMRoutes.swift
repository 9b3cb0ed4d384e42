import Hummingbird

/// GoTrue's SCIM server routes: Latchkey does not serve SCIM, and these answer what GoTrue
/// answers while it is disabled (its `requireScimServerEnabled`): 404 `feature_disabled`.
struct SCIMRoutes: AuthFeature {
    init(_ dependencies: FeatureDependencies) {}

    func register(on router: Router<AuthRequestContext>) {
        let scim: @Sendable (Request, AuthRequestContext) async throws -> Response = { _, _ in throw AuthError.scimDisabled }
        router.get("/scim/v2/ServiceProviderConfig", use: scim)
        router.get("/scim/v2/ResourceTypes", use: scim)
        router.get("/scim/v2/Schemas", use: scim)
    }
}
