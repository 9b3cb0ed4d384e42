import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyTestSupport
import LatchkeyTesting
import NIOConcurrencyHelpers
import Testing

@testable import LatchkeyServer

/// A local stand-in for Pwned Passwords' range API (`GET /range/{first 5 of SHA-1}`), answering
/// as the real one does: `SUFFIX:COUNT` lines, with padding lines of count 0 when asked for
/// padding. It records each prefix it was asked for and the headers, so a test can check that
/// only the prefix left the server.
final class FakePwnedPasswords: LoopbackFake {
    let url: String
    private let requests: NIOLockedValueBox<[(path: String, padding: String?)]>
    private let mode: NIOLockedValueBox<Mode>
    private let hashes: NIOLockedValueBox<[String]>
    private let server: LoopbackHTTPServer

    enum Mode: Sendable {
        case answer
        case fail
    }

    /// What it was asked: the paths and the `Add-Padding` header of each request, oldest first.
    var received: [(path: String, padding: String?)] { requests.withLockedValue { $0 } }

    func setMode(_ mode: Mode) { self.mode.withLockedValue { $0 = mode } }

    /// Adds `password` to the breached ones (a breach made public after it was chosen).
    func addBreached(_ password: String) { hashes.withLockedValue { $0.append(Self.sha1(password)) } }

    private init(
        url: String, requests: NIOLockedValueBox<[(path: String, padding: String?)]>, mode: NIOLockedValueBox<Mode>,
        hashes: NIOLockedValueBox<[String]>, server: LoopbackHTTPServer
    ) {
        self.url = url
        self.requests = requests
        self.mode = mode
        self.hashes = hashes
        self.server = server
    }

    static func sha1(_ password: String) -> String {
        Insecure.SHA1.hash(data: Array(password.utf8)).map { String(format: "%02X", $0) }.joined()
    }

    /// Starts one that knows `breached` as breached passwords.
    static func start(breached: [String]) async throws -> FakePwnedPasswords {
        let hashes = NIOLockedValueBox(breached.map(sha1))
        let requests = NIOLockedValueBox<[(path: String, padding: String?)]>([])
        let mode = NIOLockedValueBox(Mode.answer)
        let router = Router()
        router.get("/range/:prefix") { request, context -> Response in
            let prefix = context.parameters.get("prefix") ?? ""
            requests.withLockedValue { $0.append((request.uri.path, request.headers[HTTPField.Name("Add-Padding")!])) }
            guard mode.withLockedValue({ $0 }) == .answer else { return Response(status: .serviceUnavailable) }
            var lines = hashes.withLockedValue { $0 }.filter { $0.hasPrefix(prefix.uppercased()) }.map {
                "\($0.dropFirst(5)):\(Int.random(in: 1...90_000))"
            }
            // Padding: suffixes that match nothing real, count 0, as the API pads.
            lines += (0..<3).map { _ in String((0..<35).map { _ in "0123456789ABCDEF".randomElement()! }) + ":0" }
            return Response(
                status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: lines.joined(separator: "\r\n"))))
        }
        let server = try await LoopbackHTTPServer.start(router, label: "fake-pwned-passwords")
        return FakePwnedPasswords(url: server.baseURL + "/range/", requests: requests, mode: mode, hashes: hashes, server: server)
    }

    func stop() async { try? await server.stop() }
}

/// Leaked-password protection (GoTrue's `GOTRUE_PASSWORD_HIBP_*`) against a local stand-in of the
/// range API: a breached password is refused with reason `pwned`, only the hash prefix leaves,
/// and an unreachable API fails open, or closed when set so.
@Suite("Leaked-password protection")
struct PwnedPasswordsTests {
    static let breached = "Summer2024!"

    static func withPwned(_ fake: FakePwnedPasswords, failClosed: Bool = false) -> @Sendable (inout ServerConfiguration) -> Void {
        let url = fake.url
        return { configuration in
            configuration.passwordLeakCheck = true
            configuration.passwordLeakCheckFailClosed = failClosed
            configuration.external.allowLoopbackProviders = true
            configuration.pwnedPasswordsRangeURL = url
        }
    }

    @Test("a breached password is refused at sign-up and in a password change (reason pwned); a fresh one passes; only the prefix is sent")
    func refusesBreached() async throws {
        try await FakePwnedPasswords.start(breached: [Self.breached, "password123"]).serving { fake in
            try await TestServer.with(configure: Self.withPwned(fake)) { server in
                let refused = try await server.request(.POST, "/signup", json: ["email": "pwned@example.com", "password": Self.breached])
                #expect(refused.status == 422 && refused.errorCode == "weak_password", "\(refused.text)")
                let weakness = try #require(refused["weak_password"] as? [String: Any])
                #expect(weakness["reasons"] as? [String] == ["pwned"])
                #expect((refused["msg"] as? String)?.contains("known to be weak") == true)
                let retried = try await server.request(
                    .POST, "/signup", json: ["email": "pwned@example.com", "password": "a fresh horse battery staple"])
                #expect(retried.status == 200, "the refused sign-up created nothing: \(retried.text)")

                let session = try await server.signUp("fresh@example.com", "a fresh horse battery staple")
                let change = try await server.request(.PUT, "/user", json: ["password": "password123"], bearer: session.accessToken)
                #expect(change.status == 422 && change.errorCode == "weak_password", "\(change.text)")
                #expect(try await server.signIn("fresh@example.com", "a fresh horse battery staple").status == 200, "the old password still works")

                // A password found in a breach after it was chosen still signs in; the session says
                // so, as GoTrue's does. When the API cannot be asked, the sign-in is not held up.
                _ = try await server.signUp("before@example.com", "Winter2023 was fine")
                #expect(try await server.signIn("before@example.com", "Winter2023 was fine")["weak_password"] == nil)
                fake.addBreached("Winter2023 was fine")
                let told = try await server.signIn("before@example.com", "Winter2023 was fine")
                #expect(told.status == 200 && (told["weak_password"] as? [String: Any])?["reasons"] as? [String] == ["pwned"], "\(told.text)")
                fake.setMode(.fail)
                let unasked = try await server.signIn("before@example.com", "Winter2023 was fine")
                #expect(unasked.status == 200 && unasked["weak_password"] == nil, "\(unasked.text)")
                fake.setMode(.answer)

                // Several reasons at once, as GoTrue gives them.
                let short = try await server.request(.POST, "/signup", json: ["email": "short@example.com", "password": "pass"])
                #expect((short["weak_password"] as? [String: Any])?["reasons"] as? [String] == ["length"], "\(short.text)")

                let received = fake.received
                #expect(!received.isEmpty && received.allSatisfy { $0.path.count == "/range/".count + 5 && $0.padding == "true" })
                #expect(Set(received.map { String($0.path.suffix(5)) }).contains(String(FakePwnedPasswords.sha1(Self.breached).prefix(5))))
            }
        }
    }

    @Test("an API that cannot be asked: allowed by default (fail open), refused with GoTrue's 500 when failing closed")
    func failOpenOrClosed() async throws {
        try await FakePwnedPasswords.start(breached: [Self.breached]).serving { fake in
            fake.setMode(.fail)
            try await TestServer.with(configure: Self.withPwned(fake)) { server in
                let allowed = try await server.request(.POST, "/signup", json: ["email": "open@example.com", "password": Self.breached])
                #expect(allowed.status == 200, "\(allowed.text)")
            }
            try await TestServer.with(configure: Self.withPwned(fake, failClosed: true)) { server in
                let refused = try await server.request(
                    .POST, "/signup", json: ["email": "closed@example.com", "password": "a fresh horse battery staple"])
                #expect(refused.status == 500 && (refused["msg"] as? String)?.contains("HaveIBeenPwned") == true, "\(refused.text)")
                fake.setMode(.answer)
                let later = try await server.request(
                    .POST, "/signup", json: ["email": "closed@example.com", "password": "a fresh horse battery staple"])
                #expect(later.status == 200, "nothing was kept from the refused attempt: \(later.text)")
            }
        }
    }
}
