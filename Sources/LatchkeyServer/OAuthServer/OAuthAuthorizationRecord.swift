import Foundation

/// One sign-in another app asked for at `GET /oauth/authorize`, from the request to the code
/// the app redeems (GoTrue's `oauth_authorizations` row).
///
/// It is bound to the signed-in user who first reads it, approved or denied by that user, and
/// redeemed once. Only the SHA-256 of its code is stored. A redeemed authorization remembers the
/// session its code started, so that a second redemption of the same code (a leaked code)
/// ends that session too.
package struct OAuthAuthorizationRecord: Sendable, Hashable, Codable {
    enum Status: String, Sendable, Hashable, Codable {
        /// Waiting for the user's consent.
        case pending
        /// Consented: its code may be redeemed once.
        case approved
        case denied
        /// Not consented to, or not redeemed, in time.
        case expired
        /// Its code started a session.
        case redeemed
        /// Its code was presented again after it was redeemed: the session it started is ended.
        case replayed
    }

    /// The `authorization_id` the consent screen is given: 32 characters of `[a-z2-7]`.
    var id: String
    var clientID: UUID
    /// The user who read it first; `nil` until then.
    var userID: UUID?
    /// The registered redirect URI the request named, exactly.
    var redirectURI: String
    /// The requested scopes, space-separated as requested (or the default scope).
    var scope: String
    var state: String?
    /// The resource indicator (RFC 8707), when the request named one.
    var resource: String?
    /// The S256 PKCE challenge.
    var codeChallenge: String
    var nonce: String?
    var status: Status
    /// The SHA-256 of the authorization code, once approved.
    var codeHash: String?
    /// The session the code started, once redeemed.
    var sessionID: UUID?
    var createdAt: Date
    /// The end of the consent step and of the code alike.
    var expiresAt: Date
    var approvedAt: Date?

    /// The stored form: the record as JSON.
    func document() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }

    init(document: String) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(document.utf8))
    }

    init(
        id: String, clientID: UUID, redirectURI: String, scope: String, state: String?, resource: String?, codeChallenge: String,
        nonce: String?, createdAt: Date, expiresAt: Date
    ) {
        self.id = id
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scope = scope
        self.state = state
        self.resource = resource
        self.codeChallenge = codeChallenge
        self.nonce = nonce
        self.status = .pending
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
