import Foundation

/// One page of a list, from the `page` (from 1) and `per_page` (1 to 1000, 50 by default)
/// query parameters. An empty value is the default, as GoTrue reads it (supabase-swift and
/// supabase-py send `page=&per_page=` unless told otherwise).
struct Page: Sendable, Equatable {
    static let defaultSize = 50

    /// The page number, from 1.
    var number: Int
    /// Entries per page.
    var size: Int
    var offset: Int { (number - 1) * size }
    var limit: Int { size }

    init(page: String?, perPage: String?) throws(AuthError) {
        guard let number = Self.value(page, default: 1, valid: { $0 >= 1 }) else {
            throw AuthError.validation("Bad Pagination Parameters: page must be a positive integer")
        }
        guard let size = Self.value(perPage, default: Self.defaultSize, valid: { (1...1000).contains($0) }) else {
            throw AuthError.validation("Bad Pagination Parameters: per_page must be between 1 and 1000")
        }
        guard !(number - 1).multipliedReportingOverflow(by: size).overflow else {
            throw AuthError.validation("Bad Pagination Parameters: page is too large")
        }
        self.number = number
        self.size = size
    }

    /// `text` as an integer: `fallback` when absent or empty, `nil` when not a valid value.
    private static func value(_ text: String?, default fallback: Int, valid: (Int) -> Bool) -> Int? {
        guard let text, !text.isEmpty else { return fallback }
        guard let value = Int(text), valid(value) else { return nil }
        return value
    }

    /// How many pages `total` entries fill (0 for none), as GoTrue counts them.
    func pageCount(total: Int) -> Int { (total + size - 1) / size }
}
