import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// An authenticator app for the tests: the codes of one secret, never the same 30-second step
/// twice (the server accepts a step once, and one step of drift either side), waiting for the
/// next step only when a test has used them all.
final class AuthenticatorApp: @unchecked Sendable {
    let secret: String
    private var lastStep: Int64 = .min
    private let lock = NSLock()

    init(secret: String) {
        self.secret = secret
    }

    static func step(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / 30).rounded(.down)) }

    /// A code the server has not accepted yet.
    func nextCode() async throws -> String {
        while true {
            let now = Date()
            let current = Self.step(now)
            let chosen: Int64? = lock.withLock {
                let step = max(current, lastStep == .min ? current : lastStep + 1)
                guard step <= current + 1 else { return nil }
                lastStep = step
                return step
            }
            if let chosen {
                return try TOTPCode.current(secret: secret, at: Date(timeIntervalSince1970: Double(chosen) * 30 + 1))
            }
            // Every acceptable step is used: the next one starts within 30 seconds.
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// A code that is certainly wrong now.
    func wrongCode() throws -> String {
        let now = Date()
        let valid = try (-1...1).map { try TOTPCode.current(secret: secret, at: now.addingTimeInterval(Double($0) * 30)) }
        return (0..<1_000_000).lazy.map { String(format: "%06d", $0) }.first { !valid.contains($0) }!
    }
}

@Suite("latchkey two-step verification: login --totp-code, mfa enroll|verify|list|remove", .timeLimit(.minutes(10)))
struct MFACommandTests {
    static let hasTerminals = FileManager.default.fileExists(atPath: "/dev/ptmx")
    let password = "two steps ahead 7"

    /// Turns on two-step verification for the account through the library, as another device
    /// would; returns its authenticator app.
    func enableTOTP(_ server: ClientTestServer, email: String) async throws -> (app: AuthenticatorApp, factorID: String) {
        let manager = SessionManager(backend: server.server.backend(), store: MemoryCredentialStore())
        try await manager.account.signIn(email: email, password: password)
        let enrollment = try await manager.mfa.enrollTOTP(friendlyName: "Phone")
        let app = AuthenticatorApp(secret: enrollment.secret)
        try await manager.mfa.challengeAndVerify(factorID: enrollment.factorID, code: try await app.nextCode())
        return (app, enrollment.factorID)
    }

    /// The value after `label` on a line of `text` (`  secret:  ABC…`).
    func value(_ label: String, in text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(label) { return trimmed.dropFirst(label.count).trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    @Test("mfa enroll in a script prints the URI, secret and id; mfa verify --totp-code turns it on; list and status show it; the secret is not kept")
    func enrollScripted() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "enroller@example.com"
        try await server.createUser(email: email, password: password)
        #expect(try await shell.login(server, email: email, password: password).status == 0)
        let before = try await shell.run(["status"])
        #expect(before.stdout.contains("assurance:     aal1 (password)"), "\(before.stdout)")

        let enrolled = try await shell.run(["mfa", "enroll", "--name", "Phone"])
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        let uri = try #require(value("URI:", in: enrolled.stdout))
        let secret = try #require(value("secret:", in: enrolled.stdout))
        let factorID = try #require(value("factor:", in: enrolled.stdout))
        #expect(uri.hasPrefix("otpauth://totp/") && uri.contains("secret=\(secret)"))
        #expect(enrolled.stdout.contains("latchkey mfa verify \(factorID) --totp-code CODE"))
        #expect(!enrolled.stdout.contains("▀") && !enrolled.stdout.contains("\u{1B}["), "no QR code when stdout is not a terminal")
        let listed = try await shell.run(["mfa", "list"])
        #expect(listed.stdout.contains("Phone") && listed.stdout.contains("unverified"), "\(listed.stdout)")

        let app = AuthenticatorApp(secret: secret)
        let wrong = try await shell.run(["mfa", "verify", factorID, "--totp-code", try app.wrongCode()])
        #expect(wrong.status == 1, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("That code from your authenticator app is wrong."))
        let verified = try await shell.run(["mfa", "verify", "Phone", "--totp-code", try await app.nextCode()])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("Two-step verification is on"))

        let json = try await shell.run(["mfa", "list", "--json"])
        #expect(json.stdout.contains("\"status\" : \"verified\""), "\(json.stdout)")
        #expect(json.stdout.contains("\"friendly_name\" : \"Phone\""))
        let status = try await shell.run(["status"])
        #expect(status.stdout.contains("assurance:     aal2 (totp, password)"), "\(status.stdout)")
        let statusJSON = try await shell.run(["status", "--json"])
        #expect(statusJSON.stdout.contains("\"aal\" : \"aal2\""))
        #expect(statusJSON.stdout.contains("\"second_factor_required\" : false"))
        #expect(!(try shell.containsInPlainText(secret)), "the TOTP secret is never stored by the command")
        await server.discard()
    }

    @Test("login in a script: without --totp-code and no terminal exit 2 and nothing kept; a wrong code exit 1; the right one signs in at aal2")
    func loginScripted() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "scripted-mfa@example.com"
        try await server.createUser(email: email, password: password)
        let (app, _) = try await enableTOTP(server, email: email)

        let noCode = try await shell.login(server, email: email, password: password)
        #expect(noCode.status == 2, "\(noCode.stderr)")
        #expect(noCode.stderr.contains("needs the 6-digit code from your authenticator app"), "\(noCode.stderr)")
        #expect(noCode.stderr.contains("--totp-code"))
        #expect(try await shell.run(["status"]).status == 1, "the aal1 session is not kept")

        let base = ["login", "--server", server.url, "--email", email, "--password-stdin", "--store", "file"]
        let malformed = try await shell.run(base + ["--totp-code", "12ab56"], input: password + "\n")
        #expect(malformed.status == 2, "\(malformed.stderr)")
        let wrong = try await shell.run(base + ["--totp-code", try app.wrongCode()], input: password + "\n")
        #expect(wrong.status == 1, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("That code from your authenticator app is wrong."))
        #expect(try await shell.run(["status"]).status == 1)

        let code = try await app.nextCode()
        let login = try await shell.run(base + ["--totp-code", code], input: password + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in to \(server.url) as \(email)."))
        #expect(!login.stdout.contains(code) && !login.stderr.contains(code), "the code is not echoed")
        let status = try await shell.run(["status"])
        #expect(status.stdout.contains("assurance:     aal2"), "\(status.stdout)")
        let token = try await shell.token()
        #expect(try await server.userStatus(accessToken: token) == 200)
        await server.discard()
    }

    @Test("mfa remove by name: needs no code at aal2; afterwards login asks for the password only")
    func remove() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "remover@example.com"
        try await server.createUser(email: email, password: password)
        let (app, factorID) = try await enableTOTP(server, email: email)
        let base = ["login", "--server", server.url, "--email", email, "--password-stdin", "--store", "file"]
        #expect(try await shell.run(base + ["--totp-code", try await app.nextCode()], input: password + "\n").status == 0)

        let unknown = try await shell.run(["mfa", "remove", "Tablet"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no authenticator app 'Tablet'"))
        let removed = try await shell.run(["mfa", "remove", "Phone"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("Removed 'Phone' (\(factorID))."))
        #expect(removed.stdout.contains("Two-step verification is off"))
        #expect(try await shell.run(["mfa", "list"]).stdout.contains("No authenticator apps."))

        let again = ClientSandbox()
        defer { again.remove() }
        let login = try await again.login(server, email: email, password: password)
        #expect(login.status == 0, "no code needed any more: \(login.stderr)")
        await server.discard()
    }

    @Test(
        "login at a terminal asks for the code after the password; a wrong code is asked again",
        .enabled(if: hasTerminals, "no pseudo-terminals (/dev/ptmx) here"))
    func loginAtTerminal() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "tty-mfa@example.com"
        try await server.createUser(email: email, password: password)
        let (app, _) = try await enableTOTP(server, email: email)

        let terminal = try PseudoTerminal(
            ["login", "--server", server.url, "--email", email, "--store", "file", "--timeout", "60"],
            environment: ["LATCHKEY_HOME": shell.home.path])
        #expect(await terminal.waitFor("Password: "))
        terminal.type("\(password)\n")
        #expect(await terminal.waitFor("Code from your authenticator app (Phone): ", upTo: 90), "\(terminal.text)")
        terminal.type("\(try app.wrongCode())\n")
        #expect(
            await terminal.waitFor("That code from your authenticator app is wrong. Try the code your app shows now.", upTo: 90), "\(terminal.text)")
        terminal.type("\(try await app.nextCode())\n")
        let status = await terminal.finish(upTo: 120)
        #expect(status == 0, "\(terminal.text)")
        #expect(terminal.text.contains("Signed in to \(server.url) as \(email)."))
        #expect(!terminal.text.contains(password), "the password is never echoed")
        #expect(try await shell.run(["status"]).stdout.contains("assurance:     aal2"))
        await server.discard()
    }

    @Test(
        "mfa enroll at a terminal: shows the secret, asks for the first code, and turns two-step verification on",
        .enabled(if: hasTerminals, "no pseudo-terminals (/dev/ptmx) here"))
    func enrollAtTerminal() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "tty-enroll@example.com"
        try await server.createUser(email: email, password: password)
        #expect(try await shell.login(server, email: email, password: password).status == 0)

        let terminal = try PseudoTerminal(["mfa", "enroll", "--name", "Laptop", "--timeout", "60"], environment: ["LATCHKEY_HOME": shell.home.path])
        #expect(await terminal.waitFor("Code from your authenticator app (Laptop): ", upTo: 90), "\(terminal.text)")
        let secret = try #require(value("secret:", in: terminal.text))
        #expect(terminal.text.contains("URI:     otpauth://totp/"))
        #expect(
            terminal.text.contains("\u{1B}[") && (terminal.text.contains("▀") || terminal.text.contains("▄")),
            "a QR code drawn with half blocks on the terminal: \(terminal.text)")
        terminal.type("\(try await AuthenticatorApp(secret: secret).nextCode())\n")
        let status = await terminal.finish(upTo: 120)
        #expect(status == 0, "\(terminal.text)")
        #expect(terminal.text.contains("Two-step verification is on: 'Laptop' is verified."))
        #expect(try await shell.run(["mfa", "list"]).stdout.contains("verified"))
        await server.discard()
    }
}
