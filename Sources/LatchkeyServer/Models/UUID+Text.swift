import Foundation

extension UUID {
    /// The id as GoTrue writes it, on the wire and in the database: lowercase.
    var lowercasedString: String { uuidString.lowercased() }
}
