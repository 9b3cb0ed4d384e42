import Foundation
import Logging
import NIOSSL
import Testing

import class LatchkeyTestSupport.ChildProcess
import func LatchkeyTestSupport.eventually

@testable import LatchkeyServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real SMTP server for a test: `smtp_test_server.py` (Debian's python3-aiosmtpd) on a free
/// loopback port, with a self-signed certificate and a folder of received messages.
final class SMTPTestServer: Sendable {
    /// The server's behaviour (see the modes in `smtp_test_server.py`).
    enum Mode: String, Sendable {
        case startTLS = "starttls"
        case implicitTLS = "implicit"
        case refuseAuth = "refuse-auth"
        case dropData = "drop-data"
        case plain, open
    }

    /// A message as the server received it.
    struct Received: Sendable {
        let mailFrom: String
        let recipients: [String]
        let tls: Bool
        let authenticated: Bool
        let helo: String
        /// The message text after the server undid the dot-stuffing.
        let data: String
    }

    static let user = "mailer"
    static let password = "s3cret-SMTP-pa55word"

    let port: Int
    let certificatePath: String
    let directory: URL
    private let process: ChildProcess

    private init(port: Int, certificatePath: String, directory: URL, process: ChildProcess) {
        self.port = port
        self.certificatePath = certificatePath
        self.directory = directory
        self.process = process
    }

    /// A Python that has aiosmtpd (Debian's lives in /usr/bin's python3, which a pyenv shim in
    /// PATH may hide), or `nil`.
    static let python: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = ["/usr/bin/python3"] + path.split(separator: ":").map { "\($0)/python3" }
        return candidates.first { candidate in
            guard FileManager.default.isExecutableFile(atPath: candidate),
                let child = try? ChildProcess(executable: candidate, arguments: ["-c", "import aiosmtpd"], environment: [:])
            else { return false }
            return child.terminationStatus == 0
        }
    }()

    static var isAvailable: Bool { python != nil }
    static let unavailableReason: Comment =
        "python3-aiosmtpd is not installed (apt-get install python3-aiosmtpd): the SMTP tests against a real server are SKIPPED"

    private static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("smtp_test_server.py").path
    }

    /// Runs `body` against a fresh server in `mode`, then stops it and removes its folder.
    static func with<T: Sendable>(_ mode: Mode, _ body: (SMTPTestServer) async throws -> T) async throws -> T {
        let server = try await start(mode)
        defer { server.stop() }
        return try await body(server)
    }

    static func start(_ mode: Mode) async throws -> SMTPTestServer {
        guard let python else { throw TestFailure("python3-aiosmtpd is not installed") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-smtp-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = try ChildProcess(
            executable: python,
            arguments: [script, "--dir", directory.path, "--mode", mode.rawValue, "--user", user, "--password", password],
            environment: ["PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"])
        let ready = directory.appendingPathComponent("ready.json")
        let started = await eventually { FileManager.default.fileExists(atPath: ready.path) || !process.isRunning }
        guard started, process.isRunning,
            let json = try? JSONSerialization.jsonObject(with: Data(contentsOf: ready)) as? [String: Any],
            let port = json["port"] as? Int, let cert = json["cert"] as? String
        else {
            process.send(SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
            throw TestFailure("the SMTP test server did not start (mode \(mode.rawValue))")
        }
        return SMTPTestServer(port: port, certificatePath: cert, directory: directory, process: process)
    }

    func stop() {
        process.send(SIGTERM)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The messages received so far, oldest first.
    func received() -> [Received] {
        let folder = directory.appendingPathComponent("mail")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return names.compactMap { name in
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(name)),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return Received(
                mailFrom: json["mail_from"] as? String ?? "", recipients: json["rcpt_tos"] as? [String] ?? [],
                tls: json["tls"] as? Bool ?? false, authenticated: json["authenticated"] as? Bool ?? false,
                helo: json["helo"] as? String ?? "", data: json["data"] as? String ?? "")
        }
    }

    /// Waits until `count` messages have arrived; returns them.
    func waitForMessages(_ count: Int = 1) async throws -> [Received] {
        guard await eventually({ self.received().count >= count }) else {
            throw TestFailure("expected \(count) message(s) at the SMTP test server, got \(received().count)")
        }
        return received()
    }

    /// The settings for this server: `scheme://USER:PASSWORD@localhost:PORT` plus `query`.
    func settings(scheme: String = "smtp", credentials: Bool = true, query: String = "", host: String = "localhost") throws -> SMTPSettings {
        var settings = try SMTPSettings(url: "\(scheme)://\(credentials ? "\(Self.user):\(Self.password)@" : "")\(host):\(port)\(query)")
        settings.replyTimeout = .seconds(20)
        return settings
    }

    /// A TLS configuration that trusts this server's self-signed certificate.
    func trustingTLS() throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificatePath))
        return configuration
    }

    func mailer(_ settings: SMTPSettings, sender: String = "Latchkey Tests <no-reply@latchkey.example>") throws -> SMTPMailer {
        SMTPMailer(
            settings: settings, sender: try MailAddress(parsing: sender), tlsConfiguration: try trustingTLS(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }
}

/// A TCP port on loopback that accepts connections (the kernel completes them) but never
/// answers: for reply timeouts. Closed with ``close()``.
struct SilentListener: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            closeSocket(fd)
            throw TestFailure("cannot listen on loopback")
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        closeSocket(descriptor)
    }
}

private func closeSocket(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #else
    _ = Darwin.close(descriptor)
    #endif
}
