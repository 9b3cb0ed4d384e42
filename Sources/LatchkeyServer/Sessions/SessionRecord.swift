import Foundation

/// A signed-in session: one device or app install, holding one refresh-token family.
package struct SessionRecord: Sendable, Hashable {
    var id: UUID
    var userID: UUID
    var createdAt: Date
    var updatedAt: Date
    /// When a refresh last succeeded (or the session was created).
    var refreshedAt: Date
    /// The hard end of the session, when a session timebox is configured.
    var notAfter: Date?
    /// How the session was authenticated ("password", "otp", "recovery").
    var authMethod: String
    /// The authenticator assurance level: `aal1`, or `aal2` once a factor's code was verified in
    /// the session (GoTrue's `sessions.aal`).
    var aal: AssuranceLevel
    /// The factor that raised the session to `aal2`, if one did.
    var factorID: UUID?
    /// Methods verified in the session after it started (`totp`), each with when it last was
    /// (GoTrue's `mfa_amr_claims` beyond the sign-in method).
    var verifiedMethods: [AuthenticationMethodReference]
    /// The OAuth client the session was granted to (``OAuthAuthorizations``), when another app
    /// signed the user in through the OAuth server: only that client refreshes it, at
    /// `POST /oauth/token`, and revoking the user's grant to it ends the session.
    var oauthClientID: UUID?
    /// The scopes granted to ``oauthClientID``, space-separated as requested (`openid email`).
    var scopes: String?

    init(
        id: UUID = UUID(), userID: UUID, createdAt: Date, updatedAt: Date, refreshedAt: Date, notAfter: Date?, authMethod: String,
        aal: AssuranceLevel = .aal1, factorID: UUID? = nil, verifiedMethods: [AuthenticationMethodReference] = [],
        oauthClientID: UUID? = nil, scopes: String? = nil
    ) {
        self.id = id
        self.userID = userID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.refreshedAt = refreshedAt
        self.notAfter = notAfter
        self.authMethod = authMethod
        self.aal = aal
        self.factorID = factorID
        self.verifiedMethods = verifiedMethods
        self.oauthClientID = oauthClientID
        self.scopes = scopes
    }

    /// GoTrue's `amr` claim: the sign-in method and every method verified since, each once,
    /// most recent first.
    var authenticationMethods: [AuthenticationMethodReference] {
        let signIn = AuthenticationMethodReference(method: authMethod, timestamp: Int(createdAt.timeIntervalSince1970))
        return ([signIn] + verifiedMethods.filter { $0.method != authMethod }).enumerated()
            .sorted { $0.element.timestamp != $1.element.timestamp ? $0.element.timestamp > $1.element.timestamp : $0.offset > $1.offset }
            .map(\.element)
    }
}

/// An authenticator assurance level (NIST SP 800-63B), as GoTrue names them.
enum AssuranceLevel: String, Sendable, Hashable, Comparable {
    /// One factor (a password, an emailed code or link).
    case aal1
    /// A second factor verified in the session (a TOTP code).
    case aal2

    static func < (lhs: AssuranceLevel, rhs: AssuranceLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One entry of the `amr` claim: how the user proved who they are, and when (seconds since 1970).
struct AuthenticationMethodReference: Codable, Sendable, Hashable {
    var method: String
    var timestamp: Int

    init(method: String, timestamp: Int) {
        self.method = method
        self.timestamp = timestamp
    }
}

extension SessionRecord {
    /// Whether the session went longer than `timeout` without a refresh (GoTrue's
    /// `Session.CheckValidity`: `now` after `refreshed_at + timeout`).
    func isInactive(at now: Date, timeout: TimeInterval?) -> Bool {
        guard let timeout else { return false }
        return now > refreshedAt.addingTimeInterval(timeout)
    }
}

/// One refresh token of a session's family. Only the SHA-256 of the token is stored.
package struct RefreshTokenRecord: Sendable, Hashable {
    var id: Int64?
    var tokenHash: String
    var sessionID: UUID
    var userID: UUID
    /// The hash of the token this one replaced; `nil` for the first token of a session.
    var parentHash: String?
    /// When the token was spent (rotated) or revoked; `nil` while it is the active token.
    var revokedAt: Date?
    var createdAt: Date

    init(id: Int64? = nil, tokenHash: String, sessionID: UUID, userID: UUID, parentHash: String?, revokedAt: Date?, createdAt: Date) {
        self.id = id
        self.tokenHash = tokenHash
        self.sessionID = sessionID
        self.userID = userID
        self.parentHash = parentHash
        self.revokedAt = revokedAt
        self.createdAt = createdAt
    }

    /// A new, unspent token of `session`, replacing the token hashed `parentHash` (`nil` for the
    /// first token of the session).
    init(hash: String, of session: SessionRecord, parentHash: String?, createdAt: Date) {
        self.init(tokenHash: hash, sessionID: session.id, userID: session.userID, parentHash: parentHash, revokedAt: nil, createdAt: createdAt)
    }
}

extension SessionRecord {
    /// ``verifiedMethods`` as the JSON text both stores keep.
    var verifiedMethodsJSON: String {
        guard let data = try? JSONEncoder().encode(verifiedMethods) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }
}
