import Foundation

/// A sign-in at an identity provider in a browser, between `GET /authorize` and the provider's
/// redirect to `/callback`: its id is the OAuth `state` the provider hands back, and it is
/// spent by the first callback that names it.
package struct ProviderFlow: Sendable, Hashable {
    var id: UUID
    var provider: String
    /// Where the browser goes when the sign-in ends (checked against the allow list).
    var redirectTo: String
    /// The app's PKCE challenge: the callback then answers with `?code=` rather than a session.
    var codeChallenge: String?
    var codeChallengeMethod: FlowState.ChallengeMethod?
    /// The signed-in user an identity is being linked to (`/user/identities/authorize`).
    var linkingUserID: UUID?
    /// The PKCE verifier the server sent the provider the challenge of, if it did.
    var providerVerifier: String?
    /// The nonce the provider's ID token must carry.
    var nonce: String
    /// SHA-256 (hex) of the value of the cookie set in the browser that started the flow.
    var browserBindingHash: String
    var createdAt: Date

    init(
        id: UUID = UUID(), provider: String, redirectTo: String, codeChallenge: String?, codeChallengeMethod: FlowState.ChallengeMethod?,
        linkingUserID: UUID?, providerVerifier: String?, nonce: String, browserBindingHash: String, createdAt: Date
    ) {
        self.id = id
        self.provider = provider
        self.redirectTo = redirectTo
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.linkingUserID = linkingUserID
        self.providerVerifier = providerVerifier
        self.nonce = nonce
        self.browserBindingHash = browserBindingHash
        self.createdAt = createdAt
    }
}
