import Foundation

extension JSONValue {
    /// Why text is not JSON (``init(parsing:)``): what was expected, at which byte.
    public struct ParsingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What the parser expected.
        public let expected: String
        /// The offset of the byte where it was expected.
        public let offset: Int

        public var description: String { "not JSON: expected \(expected) at byte \(offset)" }
    }

    /// The JSON value `text` holds (RFC 8259: one value, white space around it allowed).
    ///
    /// Reads what `JSONValue`'s `Decodable` conformance reads — the same strings, `true` and
    /// `false` as ``bool(_:)``, every number as ``number(_:)`` — straight from the bytes, with
    /// no `Decoder`: decoding a `JSONValue` through one tries each JSON type in turn, and every
    /// miss throws, which made reading stored metadata the largest cost of reading a session.
    /// Objects nest at most 512 deep.
    public init(parsing text: String) throws(ParsingError) {
        var text = text
        let parsed: Result<JSONValue, ParsingError> = text.withUTF8 { bytes in
            var parser = JSONTextParser(bytes: bytes)
            return Result { () throws(ParsingError) -> JSONValue in try parser.document() }
        }
        self = try parsed.get()
    }
}

/// A recursive-descent JSON parser over UTF-8 bytes, for ``JSONValue/init(parsing:)``.
private struct JSONTextParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0
    var depth = 0

    static let maximumDepth = 512

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func document() throws(JSONValue.ParsingError) -> JSONValue {
        let value = try value()
        skipWhiteSpace()
        guard offset == bytes.count else { throw error("the end of the text") }
        return value
    }

    private func error(_ expected: String) -> JSONValue.ParsingError {
        JSONValue.ParsingError(expected: expected, offset: offset)
    }

    private mutating func skipWhiteSpace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): offset += 1
            default: return
            }
        }
    }

    private mutating func value() throws(JSONValue.ParsingError) -> JSONValue {
        skipWhiteSpace()
        guard offset < bytes.count else { throw error("a value") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return .number(try number())
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONValue.ParsingError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count,
            word.withUTF8Buffer({ expected in expected.elementsEqual(bytes[offset..<offset + count]) })
        else { throw error("\(word)") }
        offset += count
        return value
    }

    /// Steps into an object or array at its opening bracket; `false` when it closes at once.
    private mutating func open(closing: UInt8) throws(JSONValue.ParsingError) -> Bool {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("at most \(Self.maximumDepth) levels of nesting") }
        offset += 1
        skipWhiteSpace()
        return !close(closing)
    }

    /// After a member or element: `true` past a comma (another follows), `false` past the
    /// closing bracket.
    private mutating func next(closing: UInt8) throws(JSONValue.ParsingError) -> Bool {
        skipWhiteSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ",") {
            offset += 1
            return true
        }
        guard close(closing) else { throw error("\",\" or \"\(Character(Unicode.Scalar(closing)))\"") }
        return false
    }

    private mutating func close(_ closing: UInt8) -> Bool {
        guard offset < bytes.count, bytes[offset] == closing else { return false }
        offset += 1
        depth -= 1
        return true
    }

    private mutating func object() throws(JSONValue.ParsingError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        var more = try open(closing: UInt8(ascii: "}"))
        while more {
            skipWhiteSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw error("a member name") }
            let name = try string()
            skipWhiteSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw error("\":\"") }
            offset += 1
            members[name] = try value()
            more = try next(closing: UInt8(ascii: "}"))
        }
        return .object(members)
    }

    private mutating func array() throws(JSONValue.ParsingError) -> JSONValue {
        var elements: [JSONValue] = []
        var more = try open(closing: UInt8(ascii: "]"))
        while more {
            elements.append(try value())
            more = try next(closing: UInt8(ascii: "]"))
        }
        return .array(elements)
    }

    /// A string from its opening quote; the common case, no escapes, is one copy of its bytes.
    private mutating func string() throws(JSONValue.ParsingError) -> String {
        offset += 1  // "
        let start = offset
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
                offset += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw error("no control character in a string") }
            offset += 1
        }
        throw error("the end of a string")
    }

    private mutating func escapedString(from start: Int) throws(JSONValue.ParsingError) -> String {
        var text = [UInt8](bytes[start..<offset])
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard offset < bytes.count else { throw error("an escape") }
                let escape = bytes[offset]
                offset += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"): text.append(contentsOf: String(try escapedScalar()).utf8)
                default: throw error("an escape")
                }
            case 0..<0x20:
                throw error("no control character in a string")
            default:
                text.append(byte)
            }
        }
        throw error("the end of a string")
    }

    /// The character of a `\u` escape (after its `u`), a surrogate pair's two escapes together;
    /// a lone surrogate becomes U+FFFD.
    private mutating func escapedScalar() throws(JSONValue.ParsingError) -> Character {
        let first = try hexQuad()
        if (0xD800..<0xDC00).contains(first), offset + 6 <= bytes.count, bytes[offset] == UInt8(ascii: "\\"),
            bytes[offset + 1] == UInt8(ascii: "u")
        {
            let mark = offset
            offset += 2
            let second = try hexQuad()
            if (0xDC00..<0xE000).contains(second) {
                let scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                return Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")
            }
            offset = mark
        }
        return Character(Unicode.Scalar(first) ?? "\u{FFFD}")
    }

    private mutating func hexQuad() throws(JSONValue.ParsingError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw error("four hexadecimal digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("four hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// A number as RFC 8259 writes it: `-`, digits without a leading zero, a fraction, an exponent.
    private mutating func number() throws(JSONValue.ParsingError) -> Double {
        let start = offset
        func digits() -> Int {
            let first = offset
            while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) { offset += 1 }
            return offset - first
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        let integerStart = offset
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else {
            offset = start
            throw error("a value")
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard digits() > 0 else { throw error("a digit after \".\"") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw error("a digit in the exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else { throw error("a number a Double holds") }
        return number
    }
}
