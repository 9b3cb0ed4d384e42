import Hummingbird

/// Lets a route group's requests through only while its feature is on, and answers the
/// feature's own refusal otherwise (GoTrue's 404 `passkey_disabled`, `manual_linking_disabled`,
/// `feature_disabled`…), before anything of the request is read.
struct FeatureSwitchMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let enabled: Bool
    /// The answer while the feature is off.
    let refusal: AuthError

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard enabled else { throw refusal }
        return try await next(request, context)
    }
}
