import Foundation

/// The elements of the first array in a JSON document, one at a time, read from a file in
/// fixed-size chunks: memory holds one chunk and one element, however long the file.
///
/// Firebase's `auth:export` writes `{"users": [ {…}, {…} ]}`; each element's bytes are handed
/// to a `JSONDecoder` by the caller. The scanner only tracks strings, escapes and nesting; the
/// decoder checks each element's JSON, and ``next()`` throws when the file ends inside the array.
struct JSONArrayElements {
    private let handle: FileHandle
    private let chunkSize: Int
    private var buffer: [UInt8] = []
    private var position = 0
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var inArray = false
    private var finished = false
    /// The depth of the array's elements (the array sits one level above).
    private var elementDepth = 0

    struct Malformed: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    init(file: URL, chunkSize: Int = 1 << 16) throws {
        handle = try FileHandle(forReadingFrom: file)
        self.chunkSize = chunkSize
    }

    func close() { try? handle.close() }

    /// The next element's bytes, or `nil` after the array's last one.
    mutating func next() throws -> [UInt8]? {
        guard !finished else { return nil }
        var element: [UInt8] = []
        var inElement = false
        while true {
            if position == buffer.count {
                guard let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty else {
                    throw Malformed(description: inArray ? "the file ends inside the users array" : "the file has no JSON array of users")
                }
                buffer = Array(chunk)
                position = 0
            }
            let byte = buffer[position]
            position += 1
            if inElement { element.append(byte) }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                if inArray, depth == elementDepth - 1, !inElement { return try scalarElement() }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if !inArray, byte == UInt8(ascii: "[") {
                    inArray = true
                    elementDepth = depth + 1
                } else if inArray, depth == elementDepth, !inElement {
                    inElement = true
                    element = [byte]
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if inArray, inElement, depth == elementDepth - 1 { return element }
                if inArray, depth == elementDepth - 2 {
                    finished = true
                    return nil
                }
            case UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"), UInt8(ascii: ":"):
                break
            default:
                if inArray, depth == elementDepth - 1, !inElement { return try scalarElement() }
            }
        }
    }

    /// An element that is not an object or array: the users array holds objects only.
    private func scalarElement() throws -> [UInt8] {
        throw Malformed(description: "an element of the users array is not an object")
    }
}
