/// One decoded CBOR data item (RFC 8949), limited to what WebAuthn uses.
///
/// Integers keep CBOR's own split: `.unsigned(n)` is n and `.negative(n)` is -1 - n, so every
/// 64-bit argument is represented exactly. Floats, tags and indefinite lengths are not values
/// here: ``CBORDecoder`` refuses them.
indirect enum CBORValue: Hashable, Sendable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer -1 - n.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes([UInt8])
    /// Major type 3: a text string (valid UTF-8).
    case text(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map, in the order its pairs were encoded; keys are unique.
    case map([CBORMapEntry])
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null
    /// Simple value 23.
    case undefined

    /// The value as an `Int` when it is an integer that fits, else `nil`.
    var int: Int? {
        switch self {
        case .unsigned(let value): return value <= UInt64(Int.max) ? Int(value) : nil
        case .negative(let value): return value <= UInt64(Int.max) ? -1 - Int(value) : nil
        default: return nil
        }
    }

    /// The bytes of a byte string, else `nil`.
    var bytes: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    /// The text of a text string, else `nil`.
    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The elements of an array, else `nil`.
    var array: [CBORValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The pairs of a map, else `nil`.
    var map: [CBORMapEntry]? {
        if case .map(let value) = self { return value }
        return nil
    }

    /// The value of `key` when this is a map that has it, else `nil`.
    subscript(key: CBORValue) -> CBORValue? {
        map?.first { $0.key == key }?.value
    }

    /// The value of the integer key `key` (COSE labels) when this is a map that has it.
    subscript(key: Int) -> CBORValue? {
        self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))]
    }

    /// The value of the text key `key` when this is a map that has it.
    subscript(key: String) -> CBORValue? {
        self[.text(key)]
    }
}

/// One key/value pair of a CBOR map.
struct CBORMapEntry: Hashable, Sendable {
    var key: CBORValue
    var value: CBORValue

    init(key: CBORValue, value: CBORValue) {
        self.key = key
        self.value = value
    }
}
