import Foundation
internal import LatchkeyWire

/// How the models read and write what GoTrue sends and what Latchkey stores: one rule each,
/// shared by ``User``, ``Factor`` and ``Identity``.
extension KeyedDecodingContainer {
    /// A date as GoTrue sends it (an RFC 3339 string) or as Latchkey stores it (seconds since
    /// 1970, an exact round trip); `nil` when absent or unreadable.
    func modelDate(forKey key: Key) -> Date? {
        if let text = try? decodeIfPresent(String.self, forKey: key) { return WireDate.parse(text) }
        if let seconds = try? decodeIfPresent(Double.self, forKey: key) { return Date(timeIntervalSince1970: seconds) }
        return nil
    }

    /// A string, with an absent, unreadable or empty one read as `nil`.
    func nonEmptyString(forKey key: Key) -> String? {
        (try? decodeIfPresent(String.self, forKey: key)).flatMap { $0?.isEmpty == false ? $0 : nil }
    }
}

extension KeyedEncodingContainer {
    /// A date as Latchkey stores it: seconds since 1970, so a stored model reads back exactly
    /// (GoTrue strings carry microseconds, which a millisecond string would lose).
    mutating func encodeModelDate(_ date: Date?, forKey key: Key) throws {
        try encodeIfPresent(date?.timeIntervalSince1970, forKey: key)
    }
}
