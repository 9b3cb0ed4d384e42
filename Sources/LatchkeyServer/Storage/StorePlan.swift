/// What to write for a store operation, and what to answer: the row changes a pure plan
/// decided (``FactorChange``, ``IdentityChange``, ``RefreshTokenChange``), which a store applies
/// in order in the operation's transaction, and the operation's result.
package struct StorePlan<Change: Sendable, Result: Sendable>: Sendable {
    var changes: [Change]
    var result: Result

    init(changes: [Change], result: Result) {
        self.changes = changes
        self.result = result
    }
}
