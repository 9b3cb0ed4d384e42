import Foundation
import LatchkeyWire

/// A security event, in GoTrue's audit-log shape.
///
/// Entries never carry a password or a token: only who did what, from where, and when.
package struct AuditEntry: Sendable, Hashable {
    /// The actions Latchkey records.
    enum Action: String, Sendable, CaseIterable {
        case userSignedUp = "user_signedup"
        case login
        case logout
        case tokenRefreshed = "token_refreshed"
        case tokenRevoked = "token_revoked"
        case userModified = "user_modified"
        case userDeleted = "user_deleted"
        case userRecoveryRequested = "user_recovery_requested"
        case userConfirmationRequested = "user_confirmation_requested"
        case userRepeatedSignUp = "user_repeated_signup"
        case userUpdatedPassword = "user_updated_password"
        case verificationAttempted = "verification_attempted"
        case userInvited = "user_invited"
        case userReauthenticateRequested = "user_reauthenticate_requested"
        /// A factor was enrolled (still unverified), as GoTrue names it.
        case factorInProgress = "factor_in_progress"
        case factorUnenrolled = "factor_unenrolled"
        case challengeCreated = "challenge_created"
        /// An administrator deleted a factor.
        case factorDeleted = "factor_deleted"
        /// An administrator renamed a factor.
        case factorUpdated = "factor_updated"
        /// An identity at an external provider was linked to the account.
        case identityLinked = "identity_linked"
        /// An identity was unlinked from the account.
        case identityUnlinked = "identity_unlinked"
        /// A passkey was registered.
        case passkeyCreated = "passkey_created"
        /// A passkey was renamed.
        case passkeyUpdated = "passkey_updated"
        /// A passkey was deleted, by its user or an administrator.
        case passkeyDeleted = "passkey_deleted"
    }

    var id: UUID
    var action: Action
    var actorID: UUID?
    var actorUsername: String?
    /// GoTrue's log type: "account", "token", "user" or "team".
    var logType: String
    var traits: [String: JSONValue]
    var ipAddress: String
    var createdAt: Date

    init(
        id: UUID = UUID(), action: Action, actorID: UUID?, actorUsername: String?,
        traits: [String: JSONValue] = [:], ipAddress: String, createdAt: Date
    ) {
        self.id = id
        self.action = action
        self.actorID = actorID
        self.actorUsername = actorUsername
        self.logType = Self.logType(for: action)
        self.traits = traits
        self.ipAddress = ipAddress
        self.createdAt = createdAt
    }

    static func logType(for action: Action) -> String {
        switch action {
        case .login, .logout, .userSignedUp, .userRepeatedSignUp, .verificationAttempted: "account"
        case .tokenRefreshed, .tokenRevoked: "token"
        case .userModified, .userRecoveryRequested, .userConfirmationRequested, .userUpdatedPassword, .userReauthenticateRequested,
            .identityLinked, .identityUnlinked, .passkeyCreated, .passkeyUpdated, .passkeyDeleted:
            "user"
        case .userDeleted, .userInvited: "team"
        case .factorInProgress, .factorUnenrolled, .challengeCreated, .factorDeleted, .factorUpdated: "factor"
        }
    }
}
