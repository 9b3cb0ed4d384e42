import Foundation

/// Which of a user's sessions end in the same transaction as a change to the user
/// (``AuthStore/updateUser(_:audit:endingSessions:)``): a new password signs out whoever knew
/// the old one, and a crash can never save the password but keep the old sessions.
package enum SessionsToEnd: Sendable, Equatable {
    /// Every session of the user: an administrator or a reset link set the password.
    case all
    /// Every session but this one: the user changed their own password while signed in.
    case allBut(UUID)

    /// The session that survives, if any.
    var kept: UUID? {
        switch self {
        case .all: nil
        case .allBut(let id): id
        }
    }
}
