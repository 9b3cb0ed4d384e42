import Foundation
import Logging
import Hummingbird

/// `POST/GET /verify`, `POST /recover` and `POST /resend`: everything that starts or ends with
/// a link in an email.
struct EmailLinkRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        router.post("/verify") { request, context in
            let body = try await JSONBody.decode(VerifyBody.self, from: request, context: context)
            let type = try AuthService.VerificationType(parsing: body.type)
            guard let token = body.token_hash ?? body.token, !token.isEmpty else { throw AuthError.validation("Verify requires a token or a token_hash") }
            return try JSONBody.response(try await service.verify(type, token: token, ipAddress: context.clientIP))
        }
        router.get("/verify") { request, context in try await verifyLink(request, context) }
        router.post("/recover") { request, context in try await recover(request, context) }
        router.post("/resend") { request, context in try await resend(request, context) }
    }

    /// The link a user clicks: verifies, then redirects to the app with the session in the URL
    /// fragment (never the query, so it is not sent to servers or kept in their logs), or with
    /// GoTrue's `error`, `error_code` and `error_description` when the link is no good.
    func verifyLink(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let redirect = service.allowedRedirect(query.get("redirect_to"))
        var fragment: String
        do {
            let type = try AuthService.VerificationType(parsing: query.get("type"))
            guard let token = query.get("token"), !token.isEmpty else { throw AuthError.otpExpired }
            let session = try await service.verify(type, token: token, ipAddress: context.clientIP)
            fragment = session.fragment(type: type.rawValue)
        } catch let error as AuthError {
            var components = URLComponents()
            components.queryItems = [
                URLQueryItem(name: "error", value: error.status == .tooManyRequests ? "over_request_rate_limit" : "access_denied"),
                URLQueryItem(name: "error_code", value: error.code),
                URLQueryItem(name: "error_description", value: error.message),
            ]
            fragment = components.percentEncodedQuery ?? ""
        }
        let base = redirect.split(separator: "#", maxSplits: 1).first.map(String.init) ?? redirect
        return Response(status: .seeOther, headers: [.location: base + "#" + fragment, .cacheControl: "no-store"])
    }

    /// Always `{}` whether or not the address has an account, so it cannot be used to find accounts.
    func recover(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let body = try await JSONBody.decode(EmailBody.self, from: request, context: context)
        let email = try InputRules.normalizedEmail(body.email)
        try service.limitEmail(to: email)
        if let user = try await service.store.user(email: email), !user.isBanned(at: service.clock.now()) {
            let redirect = body.redirect_to ?? request.uri.queryParameters.get("redirect_to")
            try await service.sendLink(.recovery, to: user, address: email, redirectTo: redirect, ipAddress: context.clientIP)
        }
        return JSONBody.empty()
    }

    /// Sends the sign-up confirmation (or pending email change) again; `{}` either way.
    func resend(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let body = try await JSONBody.decode(EmailBody.self, from: request, context: context)
        let type = body.type ?? "signup"
        guard type == "signup" || type == "email_change" else { throw AuthError.validation("Resend supports the types signup and email_change") }
        let email = try InputRules.normalizedEmail(body.email)
        try service.limitEmail(to: email)
        if type == "signup", let user = try await service.store.user(email: email), user.emailConfirmedAt == nil {
            try await service.sendLink(.signup, to: user, address: email, redirectTo: body.redirect_to, ipAddress: context.clientIP)
        } else if type == "email_change", let user = try await service.store.user(email: email), let pending = user.newEmail {
            try await service.sendLink(.emailChange, to: user, address: pending, redirectTo: body.redirect_to, ipAddress: context.clientIP)
        }
        return JSONBody.empty()
    }
}
