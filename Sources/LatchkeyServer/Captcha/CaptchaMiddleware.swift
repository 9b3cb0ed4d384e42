import Foundation
import Hummingbird
import NIOCore

/// With CAPTCHA protection on, the requests GoTrue guards (its `verifyCaptcha` middleware) must
/// carry `gotrue_meta_security.captcha_token`, checked by ``CaptchaVerifier`` before the route
/// runs: `POST /signup`, `/recover`, `/resend`, `/magiclink`, `/otp`,
/// `/passkeys/authentication/options`, and `/token` except the `refresh_token`, `pkce` and
/// `id_token` grants. An administrator's key skips the check, as in GoTrue.
///
/// Added to the router only when protection is on, so it costs nothing otherwise; a refresh
/// never waits for a provider.
struct CaptchaMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let verifier: CaptchaVerifier
    let authentication: BearerAuthentication

    static let guardedPaths: Set<String> = ["/signup", "/recover", "/resend", "/magiclink", "/otp", "/token", "/passkeys/authentication/options"]
    static let exemptGrants: Set<String> = ["refresh_token", "pkce", "id_token"]

    /// The part of a body this reads.
    private struct Body: Decodable {
        struct Security: Decodable {
            var captcha_token: String?
        }
        var gotrue_meta_security: Security?
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, Self.guardedPaths.contains(request.uri.path) else { return try await next(request, context) }
        if request.uri.path == "/token", let grant = request.uri.queryParameters.get("grant_type"), Self.exemptGrants.contains(grant) {
            return try await next(request, context)
        }
        if let token = try? request.bearerToken(), (try? await authentication.admin(bearer: token)) != nil {
            return try await next(request, context)
        }
        // The body is read here and kept for the route.
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw AuthError.requestTooLarge
        }
        let body = try? JSONDecoder().decode(Body.self, from: Data(buffer.readableBytesView))
        try await verifier.verify(token: body?.gotrue_meta_security?.captcha_token, clientIP: context.clientIP)
        return try await next(request, context)
    }
}
