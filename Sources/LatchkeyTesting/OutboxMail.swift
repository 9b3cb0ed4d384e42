import Foundation

/// An email of the outbox as a mail client reads it: the headers decoded, the plain-text and
/// HTML parts of a `multipart/alternative` message found, quoted-printable and base64 undone.
///
/// Enough MIME for what the server writes (and what a test needs), not a general parser.
public struct OutboxMail: Sendable, Equatable {
    /// The `.eml` file's text as written.
    public var raw: String
    /// The `To` header.
    public var to: String
    /// The `Subject` header, RFC 2047 words decoded.
    public var subject: String
    /// The `text/plain` part, decoded (line breaks as `\n`).
    public var text: String
    /// The `text/html` part, decoded, if the message has one.
    public var html: String?

    /// Parses the text of an `.eml` file.
    public init(parsing raw: String) {
        self.raw = raw
        let entity = Entity(raw.replacingOccurrences(of: "\r\n", with: "\n"))
        to = entity.header("to") ?? ""
        subject = Self.decodeWords(entity.header("subject") ?? "")
        var text: String?
        var html: String?
        for part in entity.leaves() {
            let type = part.contentType
            if type.hasPrefix("text/plain"), text == nil { text = part.decodedBody }
            if type.hasPrefix("text/html"), html == nil { html = part.decodedBody }
        }
        self.text = text ?? ""
        self.html = html
    }

    /// A header block and a body.
    private struct Entity {
        var headers: [(name: String, value: String)]
        var body: String

        init(_ text: String) {
            let split = text.range(of: "\n\n")
            let head = split.map { String(text[..<$0.lowerBound]) } ?? text
            body = split.map { String(text[$0.upperBound...]) } ?? ""
            var headers: [(String, String)] = []
            for line in head.split(separator: "\n", omittingEmptySubsequences: false) {
                if let first = line.first, first == " " || first == "\t", !headers.isEmpty {
                    headers[headers.count - 1].1 += " " + line.trimmingCharacters(in: .whitespaces)
                } else if let colon = line.firstIndex(of: ":") {
                    headers.append((line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
                }
            }
            self.headers = headers
        }

        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

        var contentType: String { (header("content-type") ?? "text/plain").lowercased() }

        /// A `name=value` parameter of the `Content-Type` header (quotes removed).
        func parameter(_ name: String) -> String? {
            for piece in (header("content-type") ?? "").split(separator: ";").dropFirst() {
                let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == name else { continue }
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
            return nil
        }

        /// The single-part entities inside, in order.
        func leaves() -> [Entity] {
            guard contentType.hasPrefix("multipart/"), let boundary = parameter("boundary") else { return [self] }
            var parts: [Entity] = []
            let sections = ("\n" + body).components(separatedBy: "\n--" + boundary)
            for section in sections.dropFirst() {
                if section.hasPrefix("--") { break }
                // What follows the boundary on its line (white space) and the line break.
                let content = section.drop { $0 != "\n" }.dropFirst()
                parts += Entity(String(content)).leaves()
            }
            return parts
        }

        var decodedBody: String {
            switch (header("content-transfer-encoding") ?? "7bit").lowercased() {
            case "quoted-printable": return OutboxMail.decodeQuotedPrintable(body)
            case "base64":
                let data = Data(base64Encoded: body.filter { !$0.isWhitespace }) ?? Data()
                return String(decoding: data, as: UTF8.self)
            default: return body
            }
        }
    }

    static func decodeQuotedPrintable(_ text: String) -> String {
        var bytes: [UInt8] = []
        let input = Array(text.utf8)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "=") {
                if index + 1 < input.count, input[index + 1] == UInt8(ascii: "\n") {
                    index += 2  // a soft line break
                    continue
                }
                if index + 2 < input.count, let value = UInt8(String(decoding: input[index + 1...index + 2], as: UTF8.self), radix: 16) {
                    bytes.append(value)
                    index += 3
                    continue
                }
            }
            bytes.append(byte)
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 2047 `=?UTF-8?B?…?=` and `=?UTF-8?Q?…?=` words decoded (white space between two
    /// words dropped, as the RFC says).
    static func decodeWords(_ value: String) -> String {
        guard value.contains("=?") else { return value }
        var output = ""
        var previousWasWord = false
        for token in value.split(separator: " ", omittingEmptySubsequences: false) {
            let parts = token.split(separator: "?", omittingEmptySubsequences: false)
            if token.hasPrefix("=?"), token.hasSuffix("?="), parts.count == 5 {
                let encoded = String(parts[3])
                let decoded: String
                if parts[2].uppercased() == "B" {
                    decoded = String(decoding: Data(base64Encoded: encoded) ?? Data(), as: UTF8.self)
                } else {
                    decoded = decodeQuotedPrintable(encoded.replacingOccurrences(of: "_", with: " "))
                }
                output += decoded
                previousWasWord = true
            } else {
                if !output.isEmpty || previousWasWord { output += " " }
                output += token
                previousWasWord = false
            }
        }
        return output
    }
}
