import Foundation
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

    @Test("every JSON kind reads the same through JSONSerialization as through Codable")
    func serializationAgreesWithCodable() throws {
        let data = try JSONEncoder().encode(Self.everyKind)
        let object = try JSONSerialization.jsonObject(with: data)
        #expect(JSONValue(jsonObject: object) == .object(Self.everyKind))
    }

    @Test("true and false are Booleans, never the numbers 1 and 0; \"true\" stays a string")
    func booleansAreNotNumbers() throws {
        let decoded = try JSONDecoder().decode([JSONValue].self, from: Data(#"[true, 1, false, 0, "true"]"#.utf8))
        #expect(decoded == [.bool(true), .number(1), .bool(false), .number(0), .string("true")])
        let viaSerialization = JSONValue(jsonObject: try JSONSerialization.jsonObject(with: Data(#"[true, 1, false, 0]"#.utf8)))
        #expect(viaSerialization == .array([.bool(true), .number(1), .bool(false), .number(0)]))
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
