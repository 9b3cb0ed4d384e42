import Foundation
import HTTPTypes
import LatchkeyWire

/// The server's own "Apps that can sign in as you" page (`/welcome/apps`): the apps a person
/// allowed through the OAuth server, with what each may see, and a button to take it back.
///
/// The hosted pages keep no signed-in browser session, so the page asks for the account's email
/// and password (``HostedPasswordCheck``: checked as the password grant checks them, and the
/// session that check starts ends at once). The list it then
/// shows carries a *page pass*: the user's id and an expiry ten minutes on, under a MAC of the
/// server's form key. The pass lets that page list the user's apps and take one back, nothing
/// else; it is never a token the API takes. Taking an app back is ``OAuthGrants/revoke(_:for:ipAddress:)``,
/// so the app's sessions end at once, as `DELETE /user/oauth/grants` ends them.
///
/// Taking an app back needs the pass, which only the page holds, so another site cannot forge
/// it. As on the consent page, a post the browser marks cross-site is refused, an account with
/// two-step verification is sent to the app (one step here cannot stand for two), and so is
/// everyone while sign-ins need a CAPTCHA.
struct HostedGrants: Sendable {
    static let path = "/welcome/apps"
    /// How long a page pass lets the page act after the password was given.
    static let passLifetime: TimeInterval = 600

    let grants: OAuthGrants
    let passwordCheck: HostedPasswordCheck
    let store: any AuthStore
    let tokens: OpaqueTokens
    let clock: any ServerClock
    /// Whether sign-ins need a CAPTCHA, which this page has none of.
    var captchaEnabled = false

    /// What the page shows: its values and status.
    struct Page: Sendable {
        var values: [String: any Sendable]
        var status: Int
    }

    /// The sign-in form, with `error` above it.
    func signIn(error: String? = nil, status: Int = 200) -> Page {
        var form: [String: any Sendable] = [:]
        if let error { form["error"] = error }
        return Page(values: ["signIn": form], status: status)
    }

    /// Answers the page's form: `action=sign_in` with the email and password, or `action=revoke`
    /// with a page pass and the client's id.
    func answer(_ form: [String: String], crossSite: Bool, ipAddress: String) async throws -> Page {
        guard !crossSite else { return signIn(error: "This form can only be sent from this page.", status: 403) }
        switch form["action"] {
        case "revoke":
            return try await revoke(form, ipAddress: ipAddress)
        default:
            return try await signIn(email: form["email"] ?? "", password: form["password"] ?? "", ipAddress: ipAddress)
        }
    }

    private func signIn(email: String, password given: String, ipAddress: String) async throws -> Page {
        if captchaEnabled {
            return signIn(
                error: "This server asks for a CAPTCHA at sign-in, which this page cannot show: see your apps from inside the app.", status: 403)
        }
        let account: (user: UserRecord, hasSecondFactor: Bool)
        do {
            account = try await passwordCheck.account(email: email, password: given, ipAddress: ipAddress)
        } catch let error as AuthError {
            return signIn(error: HostedPasswordCheck.message(for: error), status: Int(error.status.code))
        }
        if account.hasSecondFactor {
            return signIn(
                error: "This account uses two-step verification, which this page cannot ask for: see your apps from inside the app.", status: 403)
        }
        return try await list(for: account.user)
    }

    private func revoke(_ form: [String: String], ipAddress: String) async throws -> Page {
        guard let user = try await holder(of: form["pass"]) else {
            return signIn(error: "This page has expired. Sign in again to see your apps.", status: 403)
        }
        let clientID = form["client_id"] ?? ""
        var name = "The app"
        if let id = UUID(uuidString: clientID), let client = try await store.oauthClient(id: id), let clientName = client.name {
            name = clientName
        }
        do {
            try await grants.revoke(clientID, for: user, ipAddress: ipAddress)
        } catch let error as AuthError where error.code == AuthError.grantNotFound.code {
            return try await list(for: user, notice: "\(name) could already not sign in as you.")
        }
        return try await list(for: user, notice: "\(name) can no longer sign in as you, and was signed out.")
    }

    /// The list of `user`'s apps under a fresh page pass.
    private func list(for user: UserRecord, notice: String? = nil) async throws -> Page {
        let pass = self.pass(for: user.id)
        let apps: [[String: any Sendable]] = try await grants.list(for: user).map { grant in
            var app: [String: any Sendable] = [
                "name": grant.client.name ?? "An app", "clientID": grant.client.id, "pass": pass,
                "scopes": grant.scopes.map(HostedConsent.describe), "grantedAt": Self.day(grant.granted_at),
            ]
            if let uri = grant.client.uri, let scheme = URL(string: uri)?.scheme?.lowercased(), scheme == "https" || scheme == "http" {
                app["uri"] = uri
            }
            if let logo = grant.client.logo_uri, URL(string: logo)?.scheme?.lowercased() == "https" { app["logoURI"] = logo }
            return app
        }
        var values: [String: any Sendable] = ["email": user.email, "apps": apps, "empty": apps.isEmpty]
        if let notice { values["notice"] = notice }
        return Page(values: ["list": values], status: 200)
    }

    // MARK: The page pass

    /// `<user id>.<expiry, seconds since 1970>.<MAC>`.
    func pass(for userID: UUID) -> String {
        let claim = userID.lowercasedString + "." + String(Int((clock.now().timeIntervalSince1970 + Self.passLifetime).rounded(.down)))
        return claim + "." + tokens.formMAC(Self.passPurpose + claim)
    }

    /// The user a page pass stands for, while it has not expired and the user may still sign in.
    func holder(of pass: String?) async throws -> UserRecord? {
        let parts = (pass ?? "").split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let userID = UUID(uuidString: String(parts[0])), let expiry = TimeInterval(String(parts[1])),
            constantTimeEquals(String(parts[2]), tokens.formMAC(Self.passPurpose + parts[0] + "." + parts[1]))
        else { return nil }
        let now = clock.now()
        guard now.timeIntervalSince1970 < expiry, let user = try await store.user(id: userID), !user.isBanned(at: now) else { return nil }
        return user
    }

    private static let passPurpose = "oauth-apps:pass:"

    /// `2026-11-29T17:48:57Z` as `29 November 2026` (UTC); the text itself when it is not a date.
    static func day(_ wire: String) -> String {
        guard let date = WireDate.parse(wire) else { return wire }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let components = calendar.dateComponents([.day, .month, .year], from: date)
        guard let day = components.day, let month = components.month, let year = components.year else { return wire }
        return "\(day) \(months[month - 1]) \(year)"
    }

    private static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]
}
