/// A small, strict CBOR decoder (RFC 8949) for WebAuthn's attestation objects and COSE keys.
///
/// It accepts integers, byte and text strings, arrays, maps and the simple values false, true,
/// null and undefined, all of definite length. It refuses floats, tags, indefinite lengths,
/// reserved encodings, invalid UTF-8 and duplicate map keys with a ``CBORError``. Every declared
/// length is checked against the bytes left before anything is allocated (an array or map
/// element takes at least one byte), and nesting is bounded, so hostile input can neither trap
/// nor exhaust memory or the stack.
struct CBORDecoder {
    /// How deep arrays and maps may nest by default: a COSE key or attestation object needs 3.
    static let defaultMaximumDepth = 16

    private let bytes: [UInt8]
    private var position: Int
    private let maximumDepth: Int

    private init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.position = 0
        self.maximumDepth = maximumDepth
    }

    /// Decodes `input` as exactly one item; bytes after it are ``CBORError/trailingBytes``.
    static func decode(
        _ input: some Collection<UInt8>, maximumDepth: Int = defaultMaximumDepth
    ) throws(CBORError) -> CBORValue {
        let (value, length) = try decodePrefix(input, maximumDepth: maximumDepth)
        guard length == input.count else { throw .trailingBytes }
        return value
    }

    /// Decodes the first item of `input` and how many bytes it took, leaving the rest to the
    /// caller (authenticator data puts extensions after the credential's COSE key).
    static func decodePrefix(
        _ input: some Collection<UInt8>, maximumDepth: Int = defaultMaximumDepth
    ) throws(CBORError) -> (value: CBORValue, length: Int) {
        var decoder = CBORDecoder(bytes: Array(input), maximumDepth: maximumDepth)
        let value = try decoder.item(depth: 0)
        return (value, decoder.position)
    }

    private var remaining: Int { bytes.count - position }

    private mutating func byte() throws(CBORError) -> UInt8 {
        guard position < bytes.count else { throw .truncated }
        defer { position += 1 }
        return bytes[position]
    }

    /// The argument of a head whose initial byte had additional information `info` (0...27).
    private mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24...27:
            let count = 1 << Int(info - 24)
            guard remaining >= count else { throw .truncated }
            var value: UInt64 = 0
            for _ in 0..<count { value = value << 8 | UInt64(try byte()) }
            return value
        case 28...30: throw .reservedAdditionalInformation
        default: throw .indefiniteLength
        }
    }

    /// Reads the declared length of a head with additional information `info`, refused when
    /// more than the bytes left after the head would be needed (`unit` bytes per element at least).
    private mutating func length(of info: UInt8, unit: Int) throws(CBORError) -> Int {
        // Two statements: `remaining` must be read after the argument's bytes are consumed.
        let declared = try argument(info)
        guard declared <= UInt64(remaining / unit) else { throw .lengthExceedsInput }
        return Int(declared)
    }

    private mutating func item(depth: Int) throws(CBORError) -> CBORValue {
        let initial = try byte()
        let major = initial >> 5
        let info = initial & 0x1f
        switch major {
        case 0:
            return .unsigned(try argument(info))
        case 1:
            return .negative(try argument(info))
        case 2:
            let count = try length(of: info, unit: 1)
            defer { position += count }
            return .bytes(Array(bytes[position..<position + count]))
        case 3:
            let count = try length(of: info, unit: 1)
            let slice = bytes[position..<position + count]
            // String(validating:) needs macOS 15: decode with repair, then refuse any repair.
            let text = String(decoding: slice, as: UTF8.self)
            guard text.utf8.elementsEqual(slice) else { throw .invalidUTF8 }
            position += count
            return .text(text)
        case 4:
            let count = try length(of: info, unit: 1)
            guard depth < maximumDepth else { throw .nestingTooDeep }
            var elements: [CBORValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try item(depth: depth + 1)) }
            return .array(elements)
        case 5:
            let count = try length(of: info, unit: 2)
            guard depth < maximumDepth else { throw .nestingTooDeep }
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(count)
            var keys = Set<CBORValue>()
            for _ in 0..<count {
                let key = try item(depth: depth + 1)
                guard keys.insert(key).inserted else { throw .duplicateMapKey }
                entries.append(CBORMapEntry(key: key, value: try item(depth: depth + 1)))
            }
            return .map(entries)
        case 6:
            if info < 28 { _ = try argument(info) }
            throw .unsupportedTag
        default:
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 23: return .undefined
            case 24:
                _ = try byte()
                throw .unsupportedSimpleValue
            case 25...27: throw .unsupportedFloat
            case 28...30: throw .reservedAdditionalInformation
            case 31: throw .unexpectedBreak
            default: throw .unsupportedSimpleValue
            }
        }
    }
}
