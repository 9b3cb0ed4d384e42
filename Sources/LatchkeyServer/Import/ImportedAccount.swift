import Foundation

/// A user and their identities as an import would store them.
package struct ImportedAccount: Sendable, Equatable {
    var user: UserRecord
    var identities: [IdentityRecord]
    /// What of the source's row the account is imported without, and why (no values).
    var leftOut: [String] = []
}

/// Why one row of an export is not imported. The reason names fields, never their values
/// (no address, no hash).
package struct ImportRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    var reason: String
    package var description: String { reason }

    init(_ reason: String) { self.reason = reason }
}
