import Foundation
import LatchkeyTestSupport
import LatchkeyWire
import Testing

@Suite("JSON values")
struct JSONValueTests {
    static let everyKind: [String: JSONValue] = [
        "flag": .bool(true), "off": .bool(false), "zero": .number(0), "one": .number(1), "pi": .number(3.25),
        "negative": .number(-42), "name": .string("Ada"), "digits": .string("123"), "truth": .string("true"),
        "list": .array([.string("a"), .number(2), .bool(false), .null]),
        "nested": .object(["deep": .object(["x": .string("y")])]), "nothing": .null, "empty": .object([:]),
    ]

    @Test("every JSON kind round-trips exactly through Codable")
    func codableRoundTrip() throws {
        let data = try JSONEncoder().encode(Self.everyKind)
        #expect(try JSONDecoder().decode([String: JSONValue].self, from: data) == Self.everyKind)
    }

    @Test("every JSON kind parses from text as Codable decodes it")
    func parsingAgreesWithCodable() throws {
        let text = String(decoding: try JSONEncoder().encode(Self.everyKind), as: UTF8.self)
        #expect(try JSONValue(parsing: text) == .object(Self.everyKind))
        #expect(try JSONValue(parsing: " \n\t[ 1 , {} , [ ] , \"x\" ]\r\n") == .array([.number(1), .object([:]), .array([]), .string("x")]))
    }

    @Test("true and false are Booleans, never the numbers 1 and 0; \"true\" stays a string")
    func booleansAreNotNumbers() throws {
        let decoded = try JSONDecoder().decode([JSONValue].self, from: Data(#"[true, 1, false, 0, "true"]"#.utf8))
        #expect(decoded == [.bool(true), .number(1), .bool(false), .number(0), .string("true")])
        #expect(try JSONValue(parsing: #"[true, 1, false, 0, "true"]"#) == .array(decoded))
    }

    @Test("strings, escapes and numbers parse as Foundation's decoder reads them")
    func parsingEdgeCases() throws {
        let samples = [
            #""plain""#, #""quote \" backslash \\ slash \/ controls \b\f\n\r\t""#, #""\u00e9t\u00C9 \ud834\udd1e clef""#,
            #""é 𝄞 ✓ literal""#, "0", "-0", "12", "-3.25", "1e3", "2.5E-3", "6.02e+23", "9007199254740993", "[]", "{}", "null",
            #"{"a":{"b":[1,{"c":null}]},"a2":"x"}"#,
        ]
        for sample in samples {
            let expected = try JSONDecoder().decode(JSONValue.self, from: Data(sample.utf8))
            #expect(try JSONValue(parsing: sample) == expected, "\(sample)")
        }
    }

    @Test("random documents written by JSONEncoder parse back to the value written")
    func randomRoundTrips() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        func value(depth: Int) -> JSONValue {
            switch generator.next() % (depth > 3 ? 4 : 6) {
            case 0: return .null
            case 1: return .bool(generator.next() % 2 == 0)
            case 2:
                let number = Double(Int64(bitPattern: generator.next()) % 1_000_000_000) / Double(1 + generator.next() % 1000)
                return .number(number)
            case 3:
                let alphabet = Array("aZ09 \"\\/\n\t\u{1}é✓𝄞{}[],:")
                return .string(String((0..<Int(generator.next() % 12)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }))
            case 4: return .array((0..<Int(generator.next() % 4)).map { _ in value(depth: depth + 1) })
            default:
                return .object(
                    Dictionary(
                        (0..<Int(generator.next() % 4)).map { _ in ("k\(generator.next() % 100)", value(depth: depth + 1)) }, uniquingKeysWith: { $1 }
                    ))
            }
        }
        for _ in 0..<500 {
            let original = value(depth: 0)
            let text = String(decoding: try JSONEncoder().encode(original), as: UTF8.self)
            #expect(try JSONValue(parsing: text) == original, "\(text)")
        }
    }

    @Test("text that is not exactly one JSON value is refused, saying where")
    func parsingRefusesNonJSON() {
        let refused = [
            "", " ", "not json", #"{"a":"#, "[1,]", "{,}", #"{"a" 1}"#, #"{1:2}"#, "01", "1.", "-", ".5", "1e", "+1", "tru", "nul",
            #""unterminated"#, "\"tab\tinside\"", #""bad \x escape""#, #""\u12G4""#, "[1] x", "1 2", "1e999", "[", "]",
        ]
        for text in refused {
            #expect(throws: JSONValue.ParsingError.self, "\(text)") { try JSONValue(parsing: text) }
        }
        do {
            _ = try JSONValue(parsing: "[1 2]")
            Issue.record("[1 2] parsed")
        } catch {
            #expect(error.description == #"not JSON: expected "," or "]" at byte 3"#)
        }
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONValue(parsing: deepest) }
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(throws: JSONValue.ParsingError.self) { try JSONValue(parsing: tooDeep) }
    }

    @Test("whole numbers encode without a fraction, up to 2^53; others keep theirs")
    func integersStayIntegers() throws {
        func encoded(_ value: JSONValue) throws -> String { String(decoding: try JSONEncoder().encode(value), as: UTF8.self) }
        #expect(try encoded(.number(3)) == "3")
        #expect(try encoded(.number(-7)) == "-7")
        #expect(try encoded(.number(9_007_199_254_740_992)) == "9007199254740992")
        #expect(try encoded(.number(2.5)) == "2.5")
        #expect(try encoded(.array([.number(1), .null])) == "[1,null]")
        let big = try JSONDecoder().decode(JSONValue.self, from: Data("9007199254740993".utf8))
        #expect(big.numberValue != nil, "numbers beyond 2^53 still decode, as the nearest Double")
    }

    @Test("input that is not JSON fails to decode instead of becoming a default value")
    func invalidInputThrows() {
        #expect(throws: (any Error).self) { try JSONDecoder().decode(JSONValue.self, from: Data("not json".utf8)) }
        #expect(throws: (any Error).self) { try JSONDecoder().decode(JSONValue.self, from: Data("{\"a\":".utf8)) }
        #expect(throws: (any Error).self) { try JSONDecoder().decode(JSONValue.self, from: Data()) }
    }

    @Test("accessors answer only for their own kind")
    func accessors() {
        #expect(JSONValue.string("x").stringValue == "x")
        #expect(JSONValue.number(1).stringValue == nil)
        #expect(JSONValue.bool(true).boolValue == true)
        #expect(JSONValue.number(1).boolValue == nil)
        #expect(JSONValue.number(2).numberValue == 2)
        #expect(JSONValue.object(["a": .null]).objectValue == ["a": .null])
        #expect(JSONValue.array([.null]).arrayValue == [.null])
        #expect(JSONValue.null.objectValue == nil)
    }
}
