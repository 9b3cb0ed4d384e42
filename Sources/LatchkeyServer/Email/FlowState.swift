import Foundation

/// A PKCE flow waiting for its email link (RFC 7636, as GoTrue runs it for email flows).
///
/// A request that carries a `code_challenge` stores one of these. Following the link issues an
/// authorization code (only its hash is kept) and redirects with `?code=`; the app then trades
/// the code and its `code_verifier` for a session at `POST /token?grant_type=pkce`, once.
package struct FlowState: Sendable, Hashable {
    enum ChallengeMethod: String, Sendable {
        case s256
        case plain
    }

    var id: UUID
    var userID: UUID
    /// What the flow signs in with: GoTrue's authentication method names (`email/signup`,
    /// `recovery`, `magiclink`, `email_change`, `invite`).
    var authenticationMethod: String
    var codeChallenge: String
    var codeChallengeMethod: ChallengeMethod
    /// SHA-256 of the authorization code, once the link has been followed.
    var authCodeHash: String?
    var authCodeIssuedAt: Date?
    var createdAt: Date

    init(
        id: UUID = UUID(), userID: UUID, authenticationMethod: String, codeChallenge: String, codeChallengeMethod: ChallengeMethod,
        authCodeHash: String? = nil, authCodeIssuedAt: Date? = nil, createdAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.authenticationMethod = authenticationMethod
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.authCodeHash = authCodeHash
        self.authCodeIssuedAt = authCodeIssuedAt
        self.createdAt = createdAt
    }
}
