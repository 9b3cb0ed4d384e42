import Foundation
internal import LatchkeyWire

extension CodingUserInfoKey {
    /// Set (to `true`) on the encoder and decoder of a record Latchkey stores: its dates are
    /// numbers, its metadata JSON text.
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

    /// Free-form metadata (`app_metadata`, `user_metadata`, `identity_data`): a JSON object as
    /// GoTrue sends it, or, in the stored form, that object's JSON text
    /// (``KeyedEncodingContainer/encodeModelMetadata(_:forKey:storedForm:)``); empty when absent
    /// or unreadable.
    ///
    /// The stored form keeps the text because decoding a ``JSONValue`` through a `Decoder` tries
    /// each JSON type in turn, every miss a thrown `DecodingError`: that was half of reading a
    /// stored session at launch. The text is parsed at once by ``JSONValue/init(parsing:)``.
    func modelMetadata(forKey key: Key, storedForm: Bool) -> [String: JSONValue] {
        if storedForm, let text = try? decodeIfPresent(String.self, forKey: key) {
            guard text != "{}", case .object(let metadata)? = try? JSONValue(parsing: text) else { return [:] }
            return metadata
        }
        return (try? decodeIfPresent([String: JSONValue].self, forKey: key)) ?? [:]
    }

    /// A string, with an absent, unreadable or empty one read as `nil`.
    func nonEmptyString(forKey key: Key) -> String? {
        (try? decodeIfPresent(String.self, forKey: key)).flatMap { $0?.isEmpty == false ? $0 : nil }
    }
}

extension Encoder {
    /// Whether this encoder writes the record Latchkey stores (``CodingUserInfoKey/latchkeyStoredForm``).
    var writesStoredForm: Bool { userInfo[.latchkeyStoredForm] as? Bool == true }
}

extension KeyedEncodingContainer {
    /// Free-form metadata: the JSON object itself, or, in the stored form, its JSON text
    /// (read back by ``KeyedDecodingContainer/modelMetadata(forKey:storedForm:)``).
    mutating func encodeModelMetadata(_ metadata: [String: JSONValue], forKey key: Key, storedForm: Bool) throws {
        guard storedForm else { return try encode(metadata, forKey: key) }
        guard !metadata.isEmpty else { return try encode("{}", forKey: key) }
        try encode(String(decoding: try JSONEncoder().encode(metadata), as: UTF8.self), forKey: key)
    }

    /// A date as Latchkey stores it: seconds since 1970, so a stored model reads back exactly
    /// (GoTrue strings carry microseconds, which a millisecond string would lose).
    mutating func encodeModelDate(_ date: Date?, forKey key: Key) throws {
        try encodeIfPresent(date?.timeIntervalSince1970, forKey: key)
    }
}
