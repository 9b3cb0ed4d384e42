import Foundation

import class LatchkeyTestSupport.ChildProcess

/// An email as Python's `email` package reads it (`mail_client.py`): an independent MIME
/// parser standing in for a mail client.
struct MailClientView: Sendable {
    struct Part: Sendable {
        let contentType: String
        let transferEncoding: String
        let charset: String?
        let text: String
    }

    let subject: String
    let to: String
    let from: String
    let contentType: String
    let parts: [Part]
    /// The body a client shows as text, and as HTML.
    let text: String?
    let html: String?
    /// The longest line of the message as sent, in bytes (without CRLF).
    let longestLine: Int
    /// Line feeds not preceded by a carriage return.
    let bareLineFeeds: Int
    /// What the parser found wrong (empty for a valid message).
    let defects: [String]

    /// A Python 3 to run the script with (the standard library's `email` is all it needs).
    static let python: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return (["/usr/bin/python3"] + path.split(separator: ":").map { "\($0)/python3" }).first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// Parses `message` (its text as sent or as written to the outbox).
    static func read(_ message: String) async throws -> MailClientView {
        guard let python else { throw TestFailure("no python3 to read the mail with") }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-mail-\(UUID().uuidString).eml")
        try Data(message.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("mail_client.py").path
        let (status, output) = try await ChildProcess.run(
            executable: python, arguments: [script, file.path], environment: ["PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"])
        guard status == 0, let json = try JSONSerialization.jsonObject(with: output) as? [String: Any] else {
            throw TestFailure("mail_client.py failed (\(status)): \(String(decoding: output, as: UTF8.self))")
        }
        return MailClientView(
            subject: json["subject"] as? String ?? "", to: json["to"] as? String ?? "", from: json["from"] as? String ?? "",
            contentType: json["content_type"] as? String ?? "",
            parts: (json["parts"] as? [[String: Any]] ?? []).map {
                Part(
                    contentType: $0["content_type"] as? String ?? "", transferEncoding: $0["transfer_encoding"] as? String ?? "",
                    charset: $0["charset"] as? String, text: $0["text"] as? String ?? "")
            },
            text: json["text"] as? String, html: json["html"] as? String, longestLine: json["longest_line"] as? Int ?? 0,
            bareLineFeeds: json["bare_line_feeds"] as? Int ?? 0, defects: json["defects"] as? [String] ?? [])
    }
}
