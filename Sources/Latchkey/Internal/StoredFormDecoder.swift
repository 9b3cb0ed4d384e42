import Foundation
internal import LatchkeyWire

/// Reads the record Latchkey stores (``StoredSession``) through the models' own `Decodable`
/// conformances, from the tree ``JSONValue/init(parsing:)`` made of its bytes.
///
/// Reading a stored session is what a launch waits for, and Foundation's `JSONDecoder` spent
/// most of that on free-form metadata: a ``JSONValue`` decoded through any `Decoder` tries each
/// JSON type in turn, and every miss throws. Here metadata is handed over as the tree it already
/// is, and every other value is read by its type at once. Dates are seconds since 1970, as
/// ``StoredSession/encoded()`` writes them; the decoder says it reads the stored form
/// (``Swift/Decoder/readsStoredForm``), so the models try that form first.
struct StoredFormDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]

    init(_ value: JSONValue, codingPath: [any CodingKey] = []) {
        self.value = value
        self.codingPath = codingPath
    }

    var userInfo: [CodingUserInfoKey: Any] { [.latchkeyStoredForm: true] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw Self.mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(Keyed(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw Self.mismatch([JSONValue].self, value, codingPath) }
        return Unkeyed(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(value: value, codingPath: codingPath) }

    /// `value` read as `type`: the types the models store are taken from the tree directly,
    /// anything else through its own `init(from:)`. The coding path is built only when it is
    /// needed (an error, or a nested decoder): most values are leaves read at once.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        switch value {
        case .string(let string) where T.self == String.self: return string as! T
        case .number(let number) where T.self == Double.self: return number as! T
        case .number(let seconds) where T.self == Date.self: return Date(timeIntervalSince1970: seconds) as! T
        case .bool(let bool) where T.self == Bool.self: return bool as! T
        case .object(let members) where T.self == [String: JSONValue].self: return members as! T
        default: break
        }
        if T.self == JSONValue.self { return value as! T }
        // Every other standard number type is read here too: their own `init(from:)` asks a
        // single-value container for themselves, which would come back here.
        if let integerType = T.self as? any FixedWidthInteger.Type {
            func read<I: FixedWidthInteger>(_ type: I.Type) throws -> I { try integer(type, from: value, codingPath: codingPath()) }
            return try read(integerType) as! T
        }
        if T.self == Float.self, case .number(let number) = value { return Float(number) as! T }
        if T.self == String.self || T.self == Double.self || T.self == Float.self || T.self == Date.self || T.self == Bool.self
            || T.self == [String: JSONValue].self
        {
            throw mismatch(type, value, codingPath())
        }
        return try T(from: StoredFormDecoder(value, codingPath: codingPath()))
    }

    /// `value` as a whole number of type `T`, exactly.
    static func integer<T: FixedWidthInteger>(_ type: T.Type, from value: JSONValue, codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        guard case .number(let number) = value, let integer = T(exactly: number) else { throw mismatch(type, value, codingPath()) }
        return integer
    }

    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(type, DecodingError.Context(codingPath: codingPath, debugDescription: "expected \(type), found \(value.kind)"))
    }
}

extension JSONValue {
    /// The kind of value, for an error message (never the value itself: it may be a token).
    fileprivate var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// An index into an array, as a coding key.
private struct ElementKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

extension StoredFormDecoder {
    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { members.keys.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        private func member(_ key: Key) throws -> JSONValue {
            guard let value = members[key.stringValue] else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no \(key.stringValue)"))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }

        /// One lookup where the standard library's default looks the key up three times.
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let value = members[key.stringValue] else { return nil }
            if case .null = value { return nil }
            return try StoredFormDecoder.decode(type, from: value, codingPath: codingPath + [key])
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try StoredFormDecoder.decode(type, from: try member(key), codingPath: codingPath + [key])
        }

        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decode(Double.self, forKey: key)) }

        private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
            try StoredFormDecoder.integer(type, from: try member(key), codingPath: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try StoredFormDecoder(try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try StoredFormDecoder(try member(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { StoredFormDecoder(.object(members), codingPath: codingPath) }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            StoredFormDecoder(members[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0

        init(elements: [JSONValue], codingPath: [any CodingKey]) {
            self.elements = elements
            self.codingPath = codingPath
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        /// The next element and its index.
        private mutating func next() throws -> (JSONValue, Int) {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(JSONValue.self, DecodingError.Context(codingPath: codingPath, debugDescription: "no more elements"))
            }
            defer { currentIndex += 1 }
            return (elements[currentIndex], currentIndex)
        }

        private func path(_ index: Int) -> [any CodingKey] { codingPath + [ElementKey(index)] }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, elements[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, index) = try next()
            return try StoredFormDecoder.decode(type, from: value, codingPath: path(index))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let (value, index) = try next()
            return try StoredFormDecoder(value, codingPath: path(index)).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (value, index) = try next()
            return try StoredFormDecoder(value, codingPath: path(index)).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let (value, index) = try next()
            return StoredFormDecoder(value, codingPath: path(index))
        }
    }

    private struct Single: SingleValueDecodingContainer {
        let value: JSONValue
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { value == .null }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try StoredFormDecoder.decode(type, from: value, codingPath: codingPath)
        }
    }
}
