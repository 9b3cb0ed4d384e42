import Foundation
import Testing

@testable import LatchkeyServer

@Suite("JSON array elements")
struct JSONArrayElementsTests {
    func elements(_ text: String, chunkSize: Int) throws -> [String] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-elements-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var reader = try JSONArrayElements(file: file, chunkSize: chunkSize)
        defer { reader.close() }
        var found: [String] = []
        while let element = try reader.next() { found.append(String(decoding: element, as: UTF8.self)) }
        return found
    }

    @Test("each element whole, whatever the chunk size, with brackets and quotes inside strings", arguments: [1, 3, 7, 64, 1 << 16])
    func elements(chunkSize: Int) throws {
        let text = """
            {"users": [
              {"localId": "a", "displayName": "brace } and [ bracket \\" quote", "providerUserInfo": [{"rawId": "1"}]},
              {"localId": "b\\\\"}  ,
              {}
            ]}
            """
        #expect(
            try elements(text, chunkSize: chunkSize) == [
                #"{"localId": "a", "displayName": "brace } and [ bracket \" quote", "providerUserInfo": [{"rawId": "1"}]}"#,
                #"{"localId": "b\\"}"#, "{}",
            ])
        #expect(try elements(#"{"users": []}"#, chunkSize: chunkSize).isEmpty)
    }

    @Test("a file cut inside the array, one with no array, and scalar elements are refused")
    func malformed() throws {
        for text in [#"{"users": [{"localId": "a"}, {"loc"#, #"{"users": 3}"#, #"{"users": ["a"]}"#, #"{"users": [1]}"#, ""] {
            #expect(throws: JSONArrayElements.Malformed.self, "\(text)") { try elements(text, chunkSize: 5) }
        }
    }
}
