import Foundation
import HTTPTypes

/// GoTrue's pagination headers (`addPaginationHeaders`): `X-Total-Count`, and `Link` with the
/// next page (when there is one) and the last page, each the request's own path and query with
/// `page` replaced, the query re-encoded as Go's `url.Values.Encode` does (keys sorted):
///
///     </admin/users?page=2&per_page=50>; rel="next", </admin/users?page=3&per_page=50>; rel="last"
///
/// Clients (supabase-js, supabase-swift, supabase-py) read the page numbers from it.
enum PaginationHeaders {
    static var link: HTTPField.Name { HTTPField.Name("Link")! }
    static var totalCount: HTTPField.Name { HTTPField.Name("X-Total-Count")! }

    static func fields(path: String, query: String?, page: Page, total: Int) -> HTTPFields {
        let lastPage = page.pageCount(total: total)
        var parameters = parse(query ?? "")
        var value = ""
        if lastPage > page.number {
            parameters["page"] = [String(page.number + 1)]
            value += "<\(path)?\(encode(parameters))>; rel=\"next\", "
        }
        parameters["page"] = [String(lastPage)]
        value += "<\(path)?\(encode(parameters))>; rel=\"last\""
        return [link: value, totalCount: String(total)]
    }

    /// A raw query as Go's `url.ParseQuery` reads it: `&`-separated pairs, `+` and `%XX`
    /// decoded; pairs with a `;` or a bad escape are dropped.
    static func parse(_ query: String) -> [String: [String]] {
        var parameters: [String: [String]] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) where !pair.contains(";") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = unescape(parts[0]), let value = unescape(parts.count > 1 ? parts[1] : "") else { continue }
            parameters[key, default: []].append(value)
        }
        return parameters
    }

    /// Go's `url.Values.Encode`: keys sorted, each value query-escaped.
    static func encode(_ parameters: [String: [String]]) -> String {
        parameters.keys.sorted().flatMap { key in
            parameters[key, default: []].map { "\(escape(key))=\(escape($0))" }
        }.joined(separator: "&")
    }

    /// Go's `url.QueryEscape`: unreserved bytes kept, space as `+`, the rest `%XX`.
    static func escape(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                result += "+"
            default:
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }

    static func unescape(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next(), let low = iterator.next(),
                    let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
