import Foundation
import Latchkey
import LatchkeyServer
import LatchkeyTesting
import Testing

/// `latchkey mfa enroll --phone`, `mfa list`, `mfa verify`, `mfa remove|unenroll` and `login`
/// with a phone as the second factor, against a server whose text messages go to a recording
/// sender (the code a test types is the one the server texted).
@Suite("latchkey two-step verification with a phone: mfa enroll --phone, login", .timeLimit(.minutes(10)))
struct PhoneFactorCommandTests {
    static let hasTerminals = FileManager.default.fileExists(atPath: "/dev/ptmx")
    static let number = "15555550100"
    let password = "texted steps 9"

    /// A server with phone factors on and no wait between two challenges of a factor.
    static func server(_ sms: RecordingSMSSender) async throws -> ClientTestServer {
        try await ClientTestServer.start(smsSender: sms) {
            $0.mfa.phoneEnrollEnabled = true
            $0.mfa.phoneVerifyEnabled = true
            $0.mfa.phoneMaxFrequency = 0
        }
    }

    /// A code of the same length that is not `code`.
    static func wrong(_ code: String) -> String { code.first == "0" ? "1" + code.dropFirst() : "0" + code.dropFirst() }

    @Test(
        "in a script: enroll --phone adds the factor unverified (nothing texted); list shows the number; verify needs a terminal; unenroll removes it"
    )
    func scripted() async throws {
        let sms = RecordingSMSSender()
        let server = try await Self.server(sms)
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "phone-script@example.com"
        try await server.createUser(email: email, password: password)
        #expect(try await shell.login(server, email: email, password: password).status == 0)

        let conflict = try await shell.run(["mfa", "enroll", "--phone", "+15555550100", "--issuer", "Acme"])
        #expect(conflict.status == 2, "\(conflict.stderr)")
        let enrolled = try await shell.run(["mfa", "enroll", "--phone", "+15555550100", "--name", "Mobile"])
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        #expect(enrolled.stdout.contains("Added +15555550100 as a second factor"), "\(enrolled.stdout)")
        #expect(enrolled.stdout.contains("Verify it at a terminal"))
        #expect(sms.sent.isEmpty, "without a terminal nothing is texted")

        let listed = try await shell.run(["mfa", "list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let row = try #require(listed.stdout.split(separator: "\n").first { $0.contains("Mobile") }, "\(listed.stdout)")
        #expect(row.contains("phone") && row.contains("unverified") && row.contains("+15555550100"), "\(row)")
        let json = try await shell.run(["mfa", "list", "--json"])
        let factors = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(factors.first?["phone"] as? String == "+15555550100" && factors.first?["factor_type"] as? String == "phone", "\(json.stdout)")

        let verify = try await shell.run(["mfa", "verify", "Mobile"])
        #expect(verify.status == 2, "\(verify.stderr)")
        #expect(verify.stderr.contains("no terminal") && verify.stderr.contains("+15555550100"), "\(verify.stderr)")
        let withTOTP = try await shell.run(["mfa", "verify", "Mobile", "--totp-code", "123456"])
        #expect(withTOTP.status == 2 && withTOTP.stderr.contains("--totp-code is for authenticator apps"), "\(withTOTP.stderr)")
        #expect(sms.sent.isEmpty)

        let removed = try await shell.run(["mfa", "unenroll", "Mobile"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("Removed 'Mobile'"))
        #expect(try await shell.run(["mfa", "list"]).stdout.contains("No authenticator apps."))
        await server.discard()
    }

    @Test(
        "at a terminal: enroll --phone asks for the texted code (a wrong one again); login then asks for a new texted code; a script cannot log in; remove at aal2",
        .enabled(if: hasTerminals, "no pseudo-terminals (/dev/ptmx) here"))
    func atTerminal() async throws {
        let sms = RecordingSMSSender()
        let server = try await Self.server(sms)
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "phone-tty@example.com"
        try await server.createUser(email: email, password: password)
        #expect(try await shell.login(server, email: email, password: password).status == 0)

        let enrol = try PseudoTerminal(
            ["mfa", "enroll", "--phone", "+15555550100", "--name", "Mobile", "--timeout", "60"], environment: ["LATCHKEY_HOME": shell.home.path])
        #expect(await enrol.waitFor("Code texted to +15555550100: ", upTo: 90), "\(enrol.text)")
        let enrolCode = try sms.code(to: Self.number)
        enrol.type("\(Self.wrong(enrolCode))\n")
        #expect(await enrol.waitFor("That texted code is wrong.", upTo: 90), "\(enrol.text)")
        enrol.type("\(enrolCode)\n")
        #expect(await enrol.finish(upTo: 120) == 0, "\(enrol.text)")
        #expect(enrol.text.contains("Two-step verification is on: 'Mobile' is verified."))
        #expect(sms.sent.count == 1, "one challenge, asked again after the wrong code")
        #expect(try await shell.run(["status"]).stdout.contains("assurance:     aal2"))

        // A script signing in cannot be asked: nothing is texted, nothing kept.
        let script = ClientSandbox()
        defer { script.remove() }
        let scripted = try await script.login(server, email: email, password: password)
        #expect(scripted.status == 2, "\(scripted.stderr)")
        #expect(scripted.stderr.contains("needs a code texted to +15555550100"), "\(scripted.stderr)")
        #expect(try await script.run(["status"]).status == 1, "the aal1 session is not kept")
        #expect(sms.sent.count == 1)

        let other = ClientSandbox()
        defer { other.remove() }
        let login = try PseudoTerminal(
            ["login", "--server", server.url, "--email", email, "--store", "file", "--timeout", "60"],
            environment: ["LATCHKEY_HOME": other.home.path])
        #expect(await login.waitFor("Password: "))
        login.type("\(password)\n")
        #expect(await login.waitFor("Code texted to +15555550100: ", upTo: 90), "\(login.text)")
        #expect(sms.sent.count == 2)
        let loginCode = try sms.code(to: Self.number)
        if loginCode != enrolCode {
            login.type("\(enrolCode)\n")
            #expect(await login.waitFor("That texted code is wrong.", upTo: 90), "the enrolment's code is not this challenge's: \(login.text)")
        }
        login.type("\(loginCode)\n")
        #expect(await login.finish(upTo: 120) == 0, "\(login.text)")
        #expect(login.text.contains("Signed in to \(server.url) as \(email)."))
        let status = try await other.run(["status"])
        #expect(status.stdout.contains("assurance:     aal2") && status.stdout.contains("mfa/phone"), "\(status.stdout)")

        let removed = try await other.run(["mfa", "remove", "Mobile"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("Two-step verification is off"))
        await server.discard()
    }
}
