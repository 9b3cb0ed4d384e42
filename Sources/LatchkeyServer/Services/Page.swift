import Foundation

/// One page of a list, from the `page` (from 1) and `per_page` (1 to 1000, 50 by default)
/// query parameters.
struct Page: Sendable, Equatable {
    var offset: Int
    var limit: Int

    init(page: String?, perPage: String?) throws(AuthError) {
        let number = try page.map { text throws(AuthError) -> Int in
            guard let value = Int(text), value >= 1 else { throw AuthError.validation("page must be a positive integer") }
            return value
        } ?? 1
        let size = try perPage.map { text throws(AuthError) -> Int in
            guard let value = Int(text), (1...1000).contains(value) else { throw AuthError.validation("per_page must be between 1 and 1000") }
            return value
        } ?? 50
        let (offset, overflow) = (number - 1).multipliedReportingOverflow(by: size)
        guard !overflow else { throw AuthError.validation("page is too large") }
        self.offset = offset
        self.limit = size
    }
}
