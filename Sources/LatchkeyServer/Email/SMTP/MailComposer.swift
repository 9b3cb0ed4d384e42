import Foundation

/// Builds the RFC 5322 / MIME text of a ``MailMessage``: `From`, `To`, `Subject` (RFC 2047
/// encoded-words when not ASCII), `Date`, `Message-ID`, `MIME-Version`, and a `text/plain;
/// charset=utf-8` body — 7bit when it is ASCII with short lines, quoted-printable otherwise —
/// or `multipart/alternative` with an HTML part when the message has one.
///
/// Quoted-printable rather than 8bit keeps the message valid on any relay, 8BITMIME or not.
/// ASCII text stays 7bit with lines up to RFC 5322's hard limit of 998 bytes (not the 78 it
/// recommends): a link then stays whole on its line, for a reader and for scripts reading the
/// raw message. Lines end with CRLF; the SMTP client adds the dot-stuffing.
struct MailComposer: Sendable {
    var from: MailAddress
    var date: Date
    var messageID: String
    var boundary: String

    init(from: MailAddress, date: Date = Date(), messageID: String? = nil, boundary: String? = nil) {
        self.from = from
        self.date = date
        self.messageID = messageID ?? "<\(UUID().lowercasedString)@\(from.domain)>"
        self.boundary = boundary ?? "latchkey-\(UUID().lowercasedString)"
    }

    /// - Parameter validatingRecipient: whether a recipient that cannot go into an SMTP command
    ///   (not ASCII, say) is an error; the outbox takes any address a user signed up with.
    func compose(_ message: MailMessage, validatingRecipient: Bool = true) throws(SMTPError) -> String {
        if validatingRecipient, !MailAddress.isValidAddress(message.to) {
            throw SMTPError(stage: .rcptTo, kind: .permanent, message: "not a usable recipient address: \(MailAddress.printable(message.to))")
        }
        var headers = [
            "From: " + Self.mailbox(from),
            "To: " + Self.oneLine(message.to),
            Self.encodedHeader("Subject", Self.oneLine(message.subject)),
            "Date: " + Self.rfc5322Date(date),
            "Message-ID: " + messageID,
            "MIME-Version: 1.0",
        ]
        var lines: [String]
        if let html = message.html {
            headers.append("Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"")
            lines = headers + ["", "This is a multi-part message in MIME format."]
            for (subtype, text) in [("plain", message.body), ("html", html)] {
                let part = Self.part(subtype: subtype, text: text)
                lines += ["--\(boundary)"] + part.headers + [""] + [part.body]
            }
            lines.append("--\(boundary)--")
        } else {
            let part = Self.part(subtype: "plain", text: message.body)
            lines = headers + part.headers + ["", part.body]
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    // MARK: Headers

    /// `Name <address>`: the name as is when it is safe ASCII, in quotes when it has specials,
    /// encoded per RFC 2047 when it is not ASCII.
    static func mailbox(_ address: MailAddress) -> String {
        guard let name = address.name.map(oneLine), !name.isEmpty else { return address.address }
        let atext = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~ ")
        if name.unicodeScalars.allSatisfy(atext.contains) { return "\(name) <\(address.address)>" }
        if name.unicodeScalars.allSatisfy({ $0.isASCII }) {
            let quoted = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"\(quoted)\" <\(address.address)>"
        }
        return encodedWords(name, firstLineUsed: 6).joined(separator: "\r\n ") + " <\(address.address)>"
    }

    /// `Name: value`, folded; a non-ASCII value as RFC 2047 `=?UTF-8?B?…?=` words of at most
    /// 75 characters each, never splitting a character.
    static func encodedHeader(_ name: String, _ value: String) -> String {
        if value.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 }), !value.contains("=?"), name.count + 2 + value.utf8.count <= 998 {
            return "\(name): \(value)"
        }
        return "\(name): " + encodedWords(value, firstLineUsed: name.count + 2).joined(separator: "\r\n ")
    }

    static func encodedWords(_ value: String, firstLineUsed: Int) -> [String] {
        let prefix = "=?UTF-8?B?"
        let suffix = "?="
        var words: [String] = []
        var chunk: [UInt8] = []
        var budget = 75 - firstLineUsed
        func encodedLength(_ bytes: Int) -> Int { prefix.count + suffix.count + (bytes + 2) / 3 * 4 }
        for character in value {
            let bytes = Array(String(character).utf8)
            if !chunk.isEmpty, encodedLength(chunk.count + bytes.count) > max(budget, 20) {
                words.append(prefix + Data(chunk).base64EncodedString() + suffix)
                chunk = []
                budget = 75 - 1
            }
            chunk += bytes
        }
        words.append(prefix + Data(chunk).base64EncodedString() + suffix)
        return words
    }

    /// One line: CR and LF become spaces, so a value cannot add a header.
    static func oneLine(_ value: String) -> String {
        String(value.unicodeScalars.map { $0 == "\r" || $0 == "\n" ? " " : Character($0) })
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }

    // MARK: Body

    /// A part's headers and body: 7bit when the text is ASCII with lines of at most 998 bytes,
    /// quoted-printable otherwise. Line endings become CRLF.
    static func part(subtype: String, text: String) -> (headers: [String], body: String) {
        var lines = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
        // The text's final line break is the one that ends the part.
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        let plain = lines.allSatisfy { line in line.utf8.count <= 998 && line.utf8.allSatisfy { $0 < 0x80 && $0 != 0 } }
        let contentType = "Content-Type: text/\(subtype); charset=utf-8"
        if plain {
            return ([contentType, "Content-Transfer-Encoding: 7bit"], lines.joined(separator: "\r\n"))
        }
        return (
            [contentType, "Content-Transfer-Encoding: quoted-printable"], lines.map { quotedPrintable(Array($0.utf8)) }.joined(separator: "\r\n")
        )
    }

    /// One line in quoted-printable (RFC 2045 §6.7): soft line breaks keep encoded lines at 76
    /// characters; trailing spaces and tabs are encoded so that no relay strips them.
    static func quotedPrintable(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        var lineLength = 0
        for (index, byte) in bytes.enumerated() {
            let isLast = index == bytes.count - 1
            let literal = (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "=")) || ((byte == 0x20 || byte == 0x09) && !isLast)
            let token: [UInt8] = literal ? [byte] : [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            // Room for the token plus a soft break's "=" (unless this is the line's last token).
            if lineLength + token.count > (isLast ? 76 : 75) {
                output += Array("=\r\n".utf8)
                lineLength = 0
            }
            output += token
            lineLength += token.count
        }
        return String(decoding: output, as: UTF8.self)
    }
}
