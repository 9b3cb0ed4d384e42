import Foundation
import LatchkeyServer
import Testing

/// `latchkey login --phone`: the server texts a code (here to test numbers with fixed codes,
/// `--sms-test-otp`, so nothing is sent), typed back on standard input or given with `--otp`.
@Suite("latchkey login --phone")
struct PhoneLoginTests {
    static func server() async throws -> ClientTestServer {
        try await ClientTestServer.start(autoconfirm: false) {
            $0.phone.enabled = true
            $0.phone.testCodes = "15555550100:123456,15555550101:654321"
        }
    }

    @Test("--send-code, then --otp: a wrong code is refused (exit 1), the right one signs in and creates the account, once")
    func sendThenOTP() async throws {
        let server = try await Self.server()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let sent = try await shell.run(["login", "--phone", "+15555550100", "--send-code", "--server", server.url, "--store", "file"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("Check +15555550100 for a sign-in code."))
        #expect(sent.stdout.contains("--phone +15555550100 --otp CODE"))

        let wrong = try await shell.run(["login", "--phone", "+15555550100", "--otp", "000000", "--server", server.url, "--store", "file"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("That code is wrong or has expired."))
        #expect(try await shell.run(["status"]).status == 1)

        let login = try await shell.run(["login", "--phone", "+15555550100", "--otp", "123456", "--server", server.url, "--store", "file"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in to \(server.url) as +15555550100."))
        #expect(try await server.userStatus(accessToken: try await shell.token()) == 200)
        #expect(!(try shell.containsInPlainText("123456")), "the code is not kept")

        let reused = try await shell.run(["login", "--phone", "+15555550100", "--otp", "123456", "--server", server.url, "--store", "file"])
        #expect(reused.status == 1, "a code works once")
        await server.discard()
    }

    @Test("--phone --code-stdin: the code is read from stdin after the text is sent")
    func codeOnStandardInput() async throws {
        let server = try await Self.server()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let (running, input) = try shell.startWithPipe(["login", "--phone", "15555550101", "--code-stdin", "--server", server.url, "--store", "file"])
        input.write(Data("654321\n".utf8))
        #expect(await running.wait(upTo: 120))
        let result = await running.result()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Check 15555550101 for a sign-in code."))
        #expect(result.stdout.contains("Signed in to \(server.url) as +15555550101."))
        await server.discard()
    }

    @Test("--phone takes no email, password, --code or --provider")
    func conflicts() async throws {
        let shell = ClientSandbox()
        defer { shell.remove() }
        for extra in [["--email", "a@example.com"], ["--code"], ["--password-stdin"], ["--provider", "google"]] {
            let result = try await shell.run(["login", "--phone", "+15555550100", "--server", "http://127.0.0.1:9"] + extra)
            #expect(result.status == 2, "\(extra): \(result.stderr)")
        }
    }
}
