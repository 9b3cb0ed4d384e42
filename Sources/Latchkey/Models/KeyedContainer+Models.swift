import Foundation
internal import LatchkeyWire

extension CodingUserInfoKey {
    /// Set (to `true`) on the decoder of a record Latchkey stored, whose dates are numbers.
    static let latchkeyStoredForm = CodingUserInfoKey(rawValue: "latchkey.storedForm")!
}

extension Decoder {
    /// Whether this decoder reads a record Latchkey stored (``CodingUserInfoKey/latchkeyStoredForm``)
    /// rather than a GoTrue answer.
    var readsStoredForm: Bool { userInfo[.latchkeyStoredForm] as? Bool == true }
}

/// How the models read and write what GoTrue sends and what Latchkey stores: one rule each,
/// shared by ``User``, ``Factor`` and ``Identity``.
extension KeyedDecodingContainer {
    /// A date as GoTrue sends it (an RFC 3339 string) or as Latchkey stores it (seconds since
    /// 1970, an exact round trip); `nil` when absent or unreadable. Each form tried in vain
    /// costs a thrown `DecodingError`, so the form the decoder is reading (`storedForm`, from
    /// ``Swift/Decoder/readsStoredForm``) is tried first: a launch reads a stored user's dates
    /// without one.
    func modelDate(forKey key: Key, storedForm: Bool) -> Date? {
        if storedForm, let seconds = try? decodeIfPresent(Double.self, forKey: key) { return Date(timeIntervalSince1970: seconds) }
        if let text = try? decodeIfPresent(String.self, forKey: key) { return WireDate.parse(text) }
        if !storedForm, let seconds = try? decodeIfPresent(Double.self, forKey: key) { return Date(timeIntervalSince1970: seconds) }
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
