import Foundation

/// One row change of a passkey operation, applied in order in the operation's transaction
/// (``AuthStore/changePasskeys(of:plan:)``).
package enum PasskeyChange: Sendable, Equatable {
    /// Adds a passkey; ``StoreError/duplicateCredential`` when its credential id is registered
    /// already (to any account), and then nothing of the plan is written.
    case insert(PasskeyRecord)
    /// Replaces the passkey's name, signature counter, backup state and times.
    case update(PasskeyRecord)
    case delete(id: UUID)
    case audit(AuditEntry)
}

/// What to write for a passkey operation, and what to answer.
package typealias PasskeyPlan<Result: Sendable> = StorePlan<PasskeyChange, Result>
