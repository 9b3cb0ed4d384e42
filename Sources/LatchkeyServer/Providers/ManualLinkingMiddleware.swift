import Hummingbird

/// Answers every `/user/identities…` request of a signed-in user with 404
/// `manual_linking_disabled` while manual linking is off, before anything else (no provider
/// is reached, no identity id read), as GoTrue's route group does.
struct ManualLinkingMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let enabled: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard enabled else { throw AuthError.manualLinkingDisabled }
        return try await next(request, context)
    }
}
