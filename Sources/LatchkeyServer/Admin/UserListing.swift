/// How `GET /admin/users` orders and filters its users, from the `sort` and `filter` query
/// parameters as GoTrue reads them (`internal/api/sorting.go`, `FindUsersInAudience`).
///
/// - `sort`: `created_at`, optionally followed by a space and `asc` or `desc` (any case),
///   repeatable; newest first when absent or when no direction is given. Any other field or
///   direction is 400 `validation_failed` "Bad Sort Parameters: …".
/// - `filter`: users whose email or `user_metadata.full_name` contains the text, ignoring case
///   (GoTrue matches names without case and addresses, which it keeps in lower case, with it).
///   `%` and `_` match themselves: the text is a substring, not a pattern.
package struct UserListing: Sendable, Equatable {
    /// Newest `created_at` first (GoTrue's default), else oldest first.
    var newestFirst: Bool
    /// The text to look for, `nil` for every user.
    var filter: String?

    init(newestFirst: Bool = true, filter: String? = nil) {
        self.newestFirst = newestFirst
        self.filter = filter
    }

    init(sort: [String], filter: String?) throws(AuthError) {
        var directions: [Bool] = []
        for value in sort {
            let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            let field = parts.first.map(String.init) ?? ""
            guard field == "created_at" else {
                throw AuthError.validation("Bad Sort Parameters: bad field for sort '\(field.prefix(80))'")
            }
            switch parts.count > 1 ? parts[1].uppercased() : "DESC" {
            case "ASC": directions.append(false)
            case "DESC": directions.append(true)
            default:
                throw AuthError.validation("Bad Sort Parameters: bad direction for sort '\(parts[1].prefix(80))', only 'asc' and 'desc' allowed")
            }
        }
        // GoTrue orders by each value in turn: with one field, the first decides.
        let newestFirst = directions.first ?? true
        self.init(newestFirst: newestFirst, filter: filter.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The `LIKE` pattern for ``filter`` with `\` as the escape character.
    var likePattern: String? {
        guard let filter else { return nil }
        var escaped = ""
        for character in filter {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%" + escaped + "%"
    }
}
