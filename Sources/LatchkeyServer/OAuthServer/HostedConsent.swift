import Foundation
import HTTPTypes
import LatchkeyWire

/// The server's own consent page (`/welcome/consent`), where `/oauth/authorize` sends the
/// browser when the app has no consent page of its own (no `--oauth-server-authorization-path`).
///
/// It shows who asks (the client's name, its address, its logo only when served over https) and
/// what for, in plain words. Allowing takes the account's email and password
/// (``HostedPasswordCheck``: checked as the password grant checks them, and the session that
/// check starts ends at once), so nothing stays signed in on the page. Denying needs no password. Each form carries a MAC of its authorization under the
/// server's form key, and a post the browser marks cross-site is refused, as on the other hosted
/// pages. An account with two-step verification cannot allow an app here, where only one step
/// is asked, and neither can anyone while sign-ins need a CAPTCHA: they do so in the app.
struct HostedConsent: Sendable {
    static let path = "/welcome/consent"

    let authorizations: OAuthAuthorizations
    let passwordCheck: HostedPasswordCheck
    let tokens: OpaqueTokens
    /// Whether sign-ins need a CAPTCHA, which this page has none of: allowing is refused then.
    var captchaEnabled = false

    /// What the page shows after a post.
    enum Outcome: Sendable {
        /// Back to the client, with a code or `access_denied`.
        case redirect(String)
        /// The page again, saying what went wrong.
        case page([String: any Sendable], status: Int)
    }

    /// The page's values for authorization `id`: the request, or `gone`.
    func values(for id: String?, error: String? = nil) async throws -> [String: any Sendable] {
        guard let id, !id.isEmpty,
            let (authorization, client) = try? await authorizations.pending(id, refusal: .authorizationNotPending),
            authorization.userID == nil
        else { return ["gone": true] }
        var request: [String: any Sendable] = [
            "clientName": client.name ?? "An app", "authorizationID": id, "csrf": csrf(id),
            "scopes": OAuthScope.parse(authorization.scope).map(Self.describe),
        ]
        if let uri = client.clientURI { request["clientURI"] = uri }
        if let logo = client.logoURI, URL(string: logo)?.scheme?.lowercased() == "https" { request["logoURI"] = logo }
        if let error { request["error"] = error }
        return ["request": request]
    }

    /// Answers the page's form.
    func answer(_ form: [String: String], crossSite: Bool, ipAddress: String) async throws -> Outcome {
        let id = form["authorization_id"] ?? ""
        guard !crossSite, let mac = form["csrf"], !id.isEmpty, constantTimeEquals(mac, csrf(id)) else {
            return .page(try await values(for: nil), status: 403)
        }
        if form["action"] == "deny" {
            do {
                return .redirect(try await authorizations.deny(id))
            } catch let error as AuthError {
                return .page(try await values(for: id, error: error.message), status: Int(error.status.code))
            }
        }
        if captchaEnabled {
            return .page(
                try await values(
                    for: id, error: "This server asks for a CAPTCHA at sign-in, which this page cannot show: allow the app from inside the app."),
                status: 403)
        }
        let account: (user: UserRecord, hasSecondFactor: Bool)
        do {
            account = try await passwordCheck.account(email: form["email"] ?? "", password: form["password"] ?? "", ipAddress: ipAddress)
        } catch let error as AuthError {
            return .page(try await values(for: id, error: HostedPasswordCheck.message(for: error)), status: Int(error.status.code))
        }
        if account.hasSecondFactor {
            return .page(
                try await values(
                    for: id, error: "This account uses two-step verification, which this page cannot ask for: allow the app from inside the app."),
                status: 403)
        }
        do {
            switch try await authorizations.read(id, by: account.user, origin: nil) {
            case .approved(let url): return .redirect(url)
            case .details: return .redirect(try await authorizations.decide(id, approve: true, by: account.user, origin: nil))
            }
        } catch let error as AuthError {
            return .page(try await values(for: id, error: error.message), status: Int(error.status.code))
        }
    }

    private func csrf(_ id: String) -> String { tokens.formMAC("oauth-consent:" + id) }

    /// A scope in the words the page uses.
    static func describe(_ scope: String) -> String {
        switch scope {
        case "openid": "who you are (your account's ID)"
        case "email": "your email address"
        case "profile": "your name, picture and user name"
        case "phone": "your phone number"
        case "offline_access": "all this while you are away, until you take it back"
        default: scope
        }
    }
}
