import Testing

@testable import LatchkeyServer

/// The strict CBOR decoder against RFC 8949's Appendix A examples, its not-well-formed
/// examples (Appendix F) and hostile lengths and nesting.
@Suite("CBOR decoder")
struct CBORDecoderTests {
    /// Appendix A examples within the supported subset, with the values they stand for.
    static let supported: [(String, CBORValue)] = [
        ("00", .unsigned(0)), ("01", .unsigned(1)), ("0a", .unsigned(10)), ("17", .unsigned(23)), ("1818", .unsigned(24)),
        ("1819", .unsigned(25)), ("1864", .unsigned(100)), ("1903e8", .unsigned(1000)), ("1a000f4240", .unsigned(1_000_000)),
        ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)), ("1bffffffffffffffff", .unsigned(.max)),
        ("3bffffffffffffffff", .negative(.max)),  // -18446744073709551616
        ("20", .int(-1)), ("29", .int(-10)), ("3863", .int(-100)), ("3903e7", .int(-1000)),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null), ("f7", .undefined),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
        ("60", .text("")), ("6161", .text("a")), ("6449455446", .text("IETF")), ("62225c", .text("\"\\")),
        ("62c3bc", .text("\u{00fc}")), ("63e6b0b4", .text("\u{6c34}")), ("64f0908591", .text("\u{10151}")),
        ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("8301820203820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("98190102030405060708090a0b0c0d0e0f101112131415161718181819", .array((1...25).map { .unsigned(UInt64($0)) })),
        ("a0", .map([])), ("a201020304", .pairs([(.unsigned(1), .unsigned(2)), (.unsigned(3), .unsigned(4))])),
        ("a26161016162820203", .pairs([(.text("a"), .unsigned(1)), (.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
        ("826161a161626163", .array([.text("a"), .pairs([(.text("b"), .text("c"))])])),
        (
            "a56161614161626142616361436164614461656145",
            .pairs([
                (.text("a"), .text("A")), (.text("b"), .text("B")), (.text("c"), .text("C")), (.text("d"), .text("D")),
                (.text("e"), .text("E")),
            ])
        ),
    ]

    @Test("RFC 8949 Appendix A examples in the subset decode to their values", arguments: supported)
    func appendixA(hex: String, expected: CBORValue) throws {
        #expect(try CBORDecoder.decode(hexBytes(hex)) == expected)
        #expect(CBOREncoder.encode(expected) == hexBytes(hex))
    }

    @Test("integers read back as Int where they fit")
    func integers() throws {
        #expect(try CBORDecoder.decode(hexBytes("3903e7")).int == -1000)
        #expect(try CBORDecoder.decode(hexBytes("1bffffffffffffffff")).int == nil)
        #expect(try CBORDecoder.decode(hexBytes("3b7fffffffffffffff")).int == Int.min)
        #expect(try CBORDecoder.decode(hexBytes("3b8000000000000000")).int == nil)
    }

    /// Appendix A's floats, bignums (tags 2 and 3), other tags and indefinite lengths, each
    /// with the error it is refused with.
    static let refused: [(String, CBORError)] = [
        ("c249010000000000000000", .unsupportedTag), ("c349010000000000000000", .unsupportedTag),
        ("f90000", .unsupportedFloat), ("f98000", .unsupportedFloat), ("f93c00", .unsupportedFloat),
        ("fb3ff199999999999a", .unsupportedFloat), ("f93e00", .unsupportedFloat), ("f97bff", .unsupportedFloat),
        ("fa47c35000", .unsupportedFloat), ("fa7f7fffff", .unsupportedFloat), ("fb7e37e43c8800759c", .unsupportedFloat),
        ("f90001", .unsupportedFloat), ("f90400", .unsupportedFloat), ("f9c400", .unsupportedFloat),
        ("fbc010666666666666", .unsupportedFloat), ("f97c00", .unsupportedFloat), ("f97e00", .unsupportedFloat),
        ("f9fc00", .unsupportedFloat), ("fa7f800000", .unsupportedFloat), ("fb7ff0000000000000", .unsupportedFloat),
        ("f0", .unsupportedSimpleValue), ("f8ff", .unsupportedSimpleValue),
        ("c074323031332d30332d32315432303a30343a30305a", .unsupportedTag), ("c11a514b67b0", .unsupportedTag),
        ("c1fb41d452d9ec200000", .unsupportedTag), ("d74401020304", .unsupportedTag), ("d818456449455446", .unsupportedTag),
        ("d82076687474703a2f2f7777772e6578616d706c652e636f6d", .unsupportedTag),
        ("5f42010243030405ff", .indefiniteLength), ("7f657374726561646d696e67ff", .indefiniteLength), ("9fff", .indefiniteLength),
        ("9f018202039f0405ffff", .indefiniteLength), ("83018202039f0405ff", .indefiniteLength),
        ("bf61610161629f0203ffff", .indefiniteLength), ("826161bf61626163ff", .indefiniteLength),
        ("bf6346756ef563416d7421ff", .indefiniteLength),
    ]

    @Test("Appendix A's floats, tags and indefinite lengths are refused cleanly", arguments: refused)
    func appendixARefused(hex: String, expected: CBORError) {
        #expect(throws: expected) { try CBORDecoder.decode(hexBytes(hex)) }
    }

    /// RFC 8949 Appendix F.1's not-well-formed examples, and a few of our own strictness rules.
    static let malformed: [(String, CBORError)] = [
        // End of input in a head.
        ("18", .truncated), ("19", .truncated), ("1a", .truncated), ("1b", .truncated), ("1901", .truncated),
        ("1a0102", .truncated), ("1b01020304050607", .truncated), ("38", .truncated), ("58", .truncated), ("78", .truncated),
        ("98", .truncated), ("9a01ff00", .truncated), ("b8", .truncated), ("d8", .truncated), ("f8", .truncated),
        ("f900", .unsupportedFloat), ("fa0000", .unsupportedFloat), ("fb000000", .unsupportedFloat),
        // Definite-length strings with short data.
        ("41", .lengthExceedsInput), ("61", .lengthExceedsInput), ("5affffffff00", .lengthExceedsInput),
        ("5bffffffffffffffff010203", .lengthExceedsInput), ("7affffffff00", .lengthExceedsInput),
        ("7b7fffffffffffffff010203", .lengthExceedsInput),
        // A length read from the head's own bytes is checked against what follows them (found by
        // the fuzz test: the head's bytes were once counted as the string's).
        ("5801", .lengthExceedsInput), ("5b000000000000000801", .lengthExceedsInput), ("7801", .lengthExceedsInput),
        ("9801", .lengthExceedsInput), ("b801", .lengthExceedsInput), ("5a0000000400", .lengthExceedsInput),
        // Definite-length maps and arrays not closed with enough items.
        // (Counts are checked against the bytes left first: each item takes one byte at least.)
        ("81", .lengthExceedsInput), ("818181818181818181", .lengthExceedsInput), ("8200", .lengthExceedsInput),
        ("a1", .lengthExceedsInput), ("a20102", .lengthExceedsInput), ("a100", .lengthExceedsInput),
        ("a2000000", .lengthExceedsInput),
        // Reserved additional information values.
        ("1c", .reservedAdditionalInformation), ("1d", .reservedAdditionalInformation), ("1e", .reservedAdditionalInformation),
        ("3c", .reservedAdditionalInformation), ("5c", .reservedAdditionalInformation), ("7c", .reservedAdditionalInformation),
        ("9c", .reservedAdditionalInformation), ("bc", .reservedAdditionalInformation), ("dc", .unsupportedTag),
        ("fc", .reservedAdditionalInformation),
        // Two-byte encodings of simple values below 32.
        ("f800", .unsupportedSimpleValue), ("f814", .unsupportedSimpleValue), ("f81f", .unsupportedSimpleValue),
        // Indefinite lengths where they cannot be, and a lone break.
        ("1f", .indefiniteLength), ("3f", .indefiniteLength), ("ff", .unexpectedBreak), ("81ff", .unexpectedBreak),
        ("8200ff", .unexpectedBreak), ("a1ff00", .unexpectedBreak), ("a100ff", .unexpectedBreak),
        // Ours: invalid UTF-8, duplicate keys, bytes after the item.
        ("62c328", .invalidUTF8), ("61ff", .invalidUTF8), ("63eda080", .invalidUTF8),
        ("a201020103", .duplicateMapKey), ("a2616101616102", .duplicateMapKey), ("0000", .trailingBytes), ("a0f6", .trailingBytes),
    ]

    @Test("malformed and truncated input is refused with a precise reason", arguments: malformed)
    func malformedInput(hex: String, expected: CBORError) {
        #expect(throws: expected) { try CBORDecoder.decode(hexBytes(hex)) }
    }

    @Test("every prefix of a valid item is refused, never read past its end")
    func truncatedPrefixes() throws {
        let whole = hexBytes("a56161614161626142616361436164614461656145") + hexBytes("8301820203820405")
        let item = Array(whole[..<21])
        for cut in 0..<item.count {
            #expect(throws: CBORError.self) { try CBORDecoder.decode(item[..<cut]) }
        }
        let (value, length) = try CBORDecoder.decodePrefix(whole)
        #expect(length == 21)
        #expect(value.map?.count == 5)
    }

    @Test("nesting is bounded: the default depth decodes, one deeper is refused, a deep bomb fails fast")
    func nesting() throws {
        let depth = CBORDecoder.defaultMaximumDepth
        #expect(try CBORDecoder.decode([UInt8](repeating: 0x81, count: depth) + [0x00]).array != nil)
        #expect(throws: CBORError.nestingTooDeep) { try CBORDecoder.decode([UInt8](repeating: 0x81, count: depth + 1) + [0x00]) }
        #expect(throws: CBORError.nestingTooDeep) { try CBORDecoder.decode([UInt8](repeating: 0x81, count: 100_000) + [0x00]) }
        #expect(throws: CBORError.nestingTooDeep) { try CBORDecoder.decode([UInt8](repeating: 0xa1, count: 100_000) + [0x00]) }
        #expect(throws: CBORError.nestingTooDeep) { try CBORDecoder.decode([0xa1, 0x00] + [UInt8](repeating: 0x81, count: 50_000)) }
    }

    @Test("huge declared lengths are refused before anything is allocated")
    func hugeLengths() {
        for hex in [
            "9bffffffffffffffff", "bbffffffffffffffff", "5bffffffffffffffff", "7bffffffffffffffff", "9b7fffffffffffffff00",
            "bb4000000000000000000102", "9a0000000500010203", "a3000102",
        ] {
            #expect(throws: CBORError.self) { try CBORDecoder.decode(hexBytes(hex)) }
        }
        // A map of n pairs needs 2n bytes: n bytes are not enough.
        #expect(throws: CBORError.lengthExceedsInput) { try CBORDecoder.decode(hexBytes("a3000102")) }
    }

    @Test("a prefix decode reports the bytes it took and leaves the rest")
    func prefix() throws {
        let (value, length) = try CBORDecoder.decodePrefix(hexBytes("a26161016162820203") + [0xa1, 0x01, 0x02])
        #expect(length == 9)
        #expect(value["b"] == .array([.unsigned(2), .unsigned(3)]))
        #expect(value[1] == nil)
    }
}
