import Foundation
import HTTPTypes
import LatchkeyWire
import Logging

/// The question a link flow bound to no browser asks before it links anything.
///
/// `GET /user/identities/authorize?skip_http_redirect=true` answers the provider URL to an app
/// (`{"url": …}`) instead of sending a browser there, so the flow cannot be bound to the browser
/// that will open it. Whoever opens that URL signs in at the provider, and a callback that linked
/// at once would add *their* provider identity to the account of whoever asked for the URL: a
/// signed-in attacker could send the URL to a victim, and from then on the victim's "Sign in with
/// …" would open the attacker's account. GoTrue links at once; Latchkey asks.
///
/// So the callback of such a flow links nothing. It answers a page naming the provider account
/// and the account it would join, and asks the person in the browser to confirm:
/// - the provider's answer is sealed into the page (AES-GCM under a key of its own, bound to the
///   confirmation's id), never stored or shown in the clear;
/// - the confirmation is a new one-time flow, good for ``BrowserSignIn/lifetime``, bound to this
///   browser by a cookie (``BrowserSignIn/confirmationCookie``; only its hash is stored);
/// - `POST /callback/link` spends it: a cross-site post, another browser, a replay, an expired or
///   altered page links nothing, and declining (or never answering) links nothing either.
///
/// A link flow started in the browser itself (no `skip_http_redirect`) is bound to that browser
/// and links at once, as before.
struct LinkConfirmation: Sendable, Equatable {
    /// The confirmation's id (a stored ``ProviderFlow``), posted back with the answer.
    var ticket: String
    /// The provider's answer, sealed to ``ticket``.
    var sealed: String
    /// The value of the cookie binding the confirmation to this browser.
    var binding: String
    /// The provider, as shown to the person ("Keycloak").
    var providerName: String
    /// The address the provider gave, if any.
    var identityEmail: String?
    /// The account the identity would join: its address, or its number when it has none.
    var account: String
}

/// The provider's answer, sealed into a confirmation page.
private struct PendingLink: Codable {
    var data: ProviderUserData
    var accessToken: String
    var refreshToken: String?
}

extension BrowserSignIn {
    /// The cookie binding a link confirmation to the browser that was asked.
    static let confirmationCookie = "latchkey-link-confirmation"

    /// Stores a confirmation for linking what `result` says to `flow`'s account, and what the
    /// page asking for it shows.
    func askToLink(_ flow: ProviderFlow, result: ProviderSignInResult, now: Date) async throws -> LinkConfirmation {
        guard let accountID = flow.linkingUserID, let account = try await store.user(id: accountID) else { throw AuthError.userNotFound }
        let binding = OpaqueTokens.random()
        let confirmation = ProviderFlow(
            provider: flow.provider, redirectTo: flow.redirectTo, codeChallenge: flow.codeChallenge, codeChallengeMethod: flow.codeChallengeMethod,
            linkingUserID: accountID, providerVerifier: nil, nonce: "", browserBindingHash: OpaqueTokens.hash(binding), createdAt: now)
        try await store.saveProviderFlow(confirmation, deletingStartedBefore: now.addingTimeInterval(-Self.lifetime))
        let pending = PendingLink(data: result.data, accessToken: result.accessToken, refreshToken: result.refreshToken)
        let sealed = try tokens.pendingLinks.seal(Array(try JSONEncoder().encode(pending)), binding: confirmation.id.lowercasedString)
        logger.info("asking the browser to confirm an identity link", metadata: ["provider": "\(flow.provider)"])
        return LinkConfirmation(
            ticket: confirmation.id.lowercasedString, sealed: sealed, binding: binding, providerName: Self.displayName(of: flow.provider),
            identityEmail: result.data.email, account: account.email.isEmpty ? account.phone : account.email)
    }

    /// `POST /callback/link`: the answer to a confirmation page. Links the identity when the
    /// person chose to and everything checks out; otherwise links nothing. Answers where the
    /// browser goes, as ``callback(fields:binding:ipAddress:)`` does.
    func confirmLink(fields: [String: String], binding: String?, crossSite: Bool, ipAddress: String) async -> String {
        let refused = AuthError(.badRequest, "bad_oauth_state", "Identity link confirmation not found or expired")
        guard !crossSite, let ticket = fields["ticket"].flatMap(UUID.init(uuidString:)) else {
            return ErrorRedirect.url(for: refused, to: redirects.siteURL)
        }
        let now = clock.now()
        let flow: ProviderFlow
        switch await spend(ticket, binding: binding, now: now) {
        case .success(let spent): flow = spent
        case .failure(let error): return ErrorRedirect.url(for: error.code == "bad_oauth_state" ? refused : error, to: redirects.siteURL)
        }
        guard flow.linkingUserID != nil, !flow.browserBindingHash.isEmpty,
            let opened = tokens.pendingLinks.open(fields["sealed"] ?? "", binding: flow.id.lowercasedString),
            let pending = try? JSONDecoder().decode(PendingLink.self, from: Data(opened))
        else {
            logger.notice("identity link confirmation refused: not a confirmation, or altered")
            return ErrorRedirect.url(for: refused, to: redirects.siteURL)
        }
        guard fields["decision"] == "link" else {
            logger.info("identity link declined in the browser", metadata: ["provider": "\(flow.provider)"])
            return ErrorRedirect.url(for: AuthError.oauth("access_denied", "Linking the identity was declined"), to: flow.redirectTo)
        }
        do {
            let provider = try await providers.provider(named: flow.provider)
            let result = ProviderSignInResult(data: pending.data, accessToken: pending.accessToken, refreshToken: pending.refreshToken)
            return try await complete(flow, provider: provider, result: result, ipAddress: ipAddress, now: now)
        } catch {
            return failure(error, of: flow)
        }
    }

    /// A provider's name as a person reads it: `github` → "GitHub", `keycloak` → "Keycloak".
    static func displayName(of provider: String) -> String {
        let known = ["github": "GitHub", "gitlab": "GitLab", "linkedin_oidc": "LinkedIn", "workos": "WorkOS", "x": "X"]
        if let name = known[provider] { return name }
        return provider.prefix(1).uppercased() + provider.dropFirst()
    }
}
