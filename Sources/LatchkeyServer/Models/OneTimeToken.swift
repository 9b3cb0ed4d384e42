import Foundation

/// A single-use secret sent by email (a link token and, with it, a short numeric code) or by SMS
/// (a code only: its link token is random and never sent).
///
/// Kinds follow GoTrue's columns: sign-up confirmation and invitations, password recovery and
/// magic links, email change, and reauthentication before a password change. Only hashes are
/// stored: the SHA-256 of the link token, and ``EmailCode/hash(_:address:)`` of the code, which
/// binds the code to the address it was mailed to. A user has at most one live token per kind.
package struct OneTimeToken: Sendable, Hashable {
    package enum Kind: String, Sendable, CaseIterable {
        /// Sign-up confirmation and invitation.
        case confirmation = "confirmation_token"
        /// Password recovery and magic link.
        case recovery = "recovery_token"
        /// Email change: the token mailed to the new address.
        case emailChange = "email_change_token_new"
        /// Secure email change: the token mailed to the current address.
        case emailChangeCurrent = "email_change_token_current"
        /// The nonce a password change asks for when secure password change is on.
        case reauthentication = "reauthentication_token"
        /// A code sent by SMS to a new phone number (``UserRecord/phoneChange``).
        case phoneChange = "phone_change_token"
    }

    var userID: UUID
    var kind: Kind
    var tokenHash: String
    /// The hash of the emailed code, bound to ``relatesTo``; `nil` for a token sent without one.
    var codeHash: String?
    /// The address the token was sent to.
    var relatesTo: String
    var createdAt: Date

    init(userID: UUID, kind: Kind, tokenHash: String, codeHash: String? = nil, relatesTo: String, createdAt: Date) {
        self.userID = userID
        self.kind = kind
        self.tokenHash = tokenHash
        self.codeHash = codeHash
        self.relatesTo = relatesTo
        self.createdAt = createdAt
    }
}

extension OneTimeToken {
    /// Which of a token's hashes a lookup matches: its link's or its emailed code's.
    package enum Hash: Sendable, Equatable {
        /// ``OneTimeToken/tokenHash``.
        case link(String)
        /// ``OneTimeToken/codeHash``.
        case code(String)

        /// The column that holds it in both stores (a fixed name, never input).
        var column: String {
            switch self {
            case .link: "token_hash"
            case .code: "code_hash"
            }
        }

        /// The hash itself.
        var value: String {
            switch self {
            case .link(let hash), .code(let hash): hash
            }
        }
    }
}
