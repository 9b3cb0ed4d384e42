import Foundation
import HTTPTypes
import Hummingbird

/// The hosted pages' passkey routes (``HostedPasskeys``): the script, the sign-in page, the page
/// after a passkey was added, and the JSON posts the script makes. The posts answer JSON — GoTrue's
/// error shape when refused, for the script to show — never a page, and are never cached.
extension HostedPageRoutes {
    /// What a successful post answers: where the script sends the browser.
    struct Location: Encodable, Sendable {
        var location: String
    }

    func registerPasskeys(on router: Router<AuthRequestContext>) {
        let passkeys = hostedPasskeys
        router.get("/welcome/passkey.js") { _, _ in asset(templates.script, contentType: "text/javascript; charset=utf-8") }
        router.get("/welcome/passkey-added") { _, _ in page("passkey-added", title: "Passkey added") }
        router.get("/welcome/sign-in") { request, _ in
            guard passkeys.isSignInOffered else { return page("sign-in", title: "Sign in", values: ["unavailable": true]) }
            let query = request.uri.queryParameters
            let (challenge, method) = (query.get("code_challenge"), query.get("code_challenge_method"))
            do throws(AuthError) {
                _ = try HostedPasskeys.challenge(code: challenge, method: method)
            } catch {
                return page("sign-in", title: "Sign in", values: ["invalid": error.message], status: .badRequest)
            }
            let values: [String: any Sendable] = [
                "offered": true, "redirectTo": query.get("redirect_to") ?? "", "codeChallenge": challenge ?? "",
                "codeChallengeMethod": method ?? "",
            ]
            return page("sign-in", title: "Sign in", values: values, script: true)
        }
        router.post("/welcome/passkey/registration/options") { request, context in
            let body = try await request.decode(as: HostedPasskeys.Body.self, context: context)
            let options = try await passkeys.registrationOptions(
                body, ticket: request.cookies[HostedPages.ticketCookie]?.value, crossSite: Self.isCrossSite(request))
            return try JSONBody.response(options, headers: [.cacheControl: "no-store"])
        }
        router.post("/welcome/passkey/registration/verify") { request, context in
            let body = try await request.decode(as: HostedPasskeys.Body.self, context: context)
            _ = try await passkeys.register(
                body, ticket: request.cookies[HostedPages.ticketCookie]?.value, crossSite: Self.isCrossSite(request),
                ipAddress: context.clientIP)
            var response = try JSONBody.response(Location(location: "passkey-added"), headers: [.cacheControl: "no-store"])
            response.headers[.setCookie] = ticketCookie(value: "", maxAge: 0)
            return response
        }
        router.post("/welcome/passkey/sign-in") { request, context in
            let body = try await request.decode(as: HostedPasskeys.Body.self, context: context)
            let location = try await passkeys.signIn(body, crossSite: Self.isCrossSite(request), ipAddress: context.clientIP)
            return try JSONBody.response(Location(location: location), headers: [.cacheControl: "no-store"])
        }
    }
}
