import NIOCore

/// One SMTP reply: a code and its lines of text (RFC 5321 §4.2), e.g.
/// `250-smtp.example.com` `250-STARTTLS` `250 AUTH PLAIN LOGIN`.
struct SMTPReply: Sendable, Equatable {
    var code: Int
    /// The text of each line, without the code and separator.
    var lines: [String]

    var isPositive: Bool { (200..<400).contains(code) }
    /// All lines joined, for an error message.
    var text: String { lines.joined(separator: " / ") }
}

/// Builds replies from lines: `250-first`, `250-second`, `250 last`. Every line must carry the
/// same three-digit code; `-` after it means more lines follow.
struct SMTPReplyParser: Sendable {
    private var code: Int?
    private var lines: [String] = []
    /// Most lines one reply may have (a server cannot make us hold an endless reply).
    static let maximumLines = 100

    enum Failure: Error, Equatable {
        case malformed(String)
    }

    /// Adds a line (without CRLF); returns the reply once its last line has arrived.
    mutating func add(_ line: String) throws(Failure) -> SMTPReply? {
        let bytes = Array(line.utf8)
        guard bytes.count >= 3, bytes[0...2].allSatisfy({ (0x30...0x39).contains($0) }),
            (0x32...0x35).contains(bytes[0]), let lineCode = Int(String(decoding: bytes[0...2], as: UTF8.self))
        else { throw .malformed(Self.excerpt(line)) }
        let separator: UInt8? = bytes.count > 3 ? bytes[3] : nil
        guard separator == nil || separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
            throw .malformed(Self.excerpt(line))
        }
        if let code, code != lineCode { throw .malformed("reply code changed from \(code) to \(lineCode) within one reply") }
        code = lineCode
        lines.append(bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : "")
        guard lines.count <= Self.maximumLines else { throw .malformed("reply longer than \(Self.maximumLines) lines") }
        if separator == UInt8(ascii: "-") { return nil }
        defer { self = SMTPReplyParser() }
        return SMTPReply(code: lineCode, lines: lines)
    }

    private static func excerpt(_ line: String) -> String {
        "not an SMTP reply line: \(MailAddress.printable(String(line.prefix(80))))"
    }
}

/// Splits the byte stream into lines at CRLF (a bare LF is accepted too); a line longer than
/// `maximumLength` is an error, so a server cannot make us buffer without end.
struct SMTPLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = String
    static let maximumLength = 4096

    struct LineTooLong: Error {}

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maximumLength { throw LineTooLong() }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= Self.maximumLength else { throw LineTooLong() }
        var line = buffer.readString(length: length) ?? ""
        buffer.moveReaderIndex(forwardBy: 1)
        if line.hasSuffix("\r") { line.removeLast() }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
