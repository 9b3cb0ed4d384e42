import Foundation
import Testing
@testable import LatchkeyServer

@Suite("JSON values")
struct JSONValueTests {
    @Test("stored metadata round-trips every JSON type exactly")
    func roundTrip() throws {
        let metadata: [String: JSONValue] = [
            "flag": .bool(true), "off": .bool(false), "zero": .number(0), "one": .number(1), "pi": .number(3.25),
            "name": .string("Ada"), "list": .array([.string("a"), .number(2), .bool(false), .null]),
            "nested": .object(["deep": .object(["x": .string("y")])]), "nothing": .null,
        ]
        #expect([String: JSONValue].fromJSONString(metadata.jsonString()) == metadata)
        let decoded = try JSONDecoder().decode([String: JSONValue].self, from: Data(metadata.jsonString().utf8))
        #expect(decoded == metadata)
        #expect([String: JSONValue].fromJSONString("not json").isEmpty)
        #expect([String: JSONValue].fromJSONString("[1]").isEmpty)
        #expect([String: JSONValue].fromJSONString(nil).isEmpty)
    }
}
