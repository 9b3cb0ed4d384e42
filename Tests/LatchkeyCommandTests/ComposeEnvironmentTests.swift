import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `latchkey serve` given exactly the GoTrue environment of the Supabase clients' own test
/// suites (``ComposeEnvironments``) starts, answers `/health`, and warns about what GoTrue
/// starts with but cannot do there (Twilio without credentials, WebAuthn without a relying
/// party). Only where the server listens and keeps its data comes from the command line: the
/// compose files point at their own PostgreSQL container and ports.
@Suite("serve with the Supabase clients' compose environments")
struct ComposeEnvironmentTests {
    static let smsWarning = "Unable to get SMS provider"
    static let webAuthnWarning = "WebAuthn configuration is invalid"

    /// The warnings `environment` should produce.
    static func expectedWarnings(_ environment: [String: String]) -> [String] {
        var warnings: [String] = []
        if environment["GOTRUE_SMS_PROVIDER"] == "twilio" { warnings.append(smsWarning) }
        if environment["GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED"] == "true" || environment["GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED"] == "true" {
            warnings.append(webAuthnWarning)
        }
        return warnings
    }

    @Test("every GoTrue service of supabase-py's and auth-js's compose files starts: /health 200, the warnings logged")
    func startsEveryService() async throws {
        #expect(ComposeEnvironments.all.count == 8)
        // The measured failures: at least one service of each client needs each warning.
        #expect(ComposeEnvironments.all.contains { Self.expectedWarnings($0.environment).contains(Self.smsWarning) })
        #expect(ComposeEnvironments.all.contains { Self.expectedWarnings($0.environment).contains(Self.webAuthnWarning) })
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in ComposeEnvironments.all {
                group.addTask { try await Self.start(service) }
            }
            try await group.waitForAll()
        }
    }

    static func start(_ service: ComposeEnvironments.Service) async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-compose-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let port = try CommandRunner.freePort()
        let server = try CommandRunner.start(
            [
                "serve", "--host", "127.0.0.1", "--port", "\(port)", "--data-dir", data.path,
                "--database", "sqlite://" + data.appendingPathComponent("latchkey.sqlite").path, "--log-level", "notice",
            ],
            environment: service.environment)
        let base = "http://127.0.0.1:\(port)"
        // Wait for /health while the process runs (a refusal ends it at once), with a deadline
        // only for one that never answers.
        let deadline = ContinuousClock.now + .seconds(120)
        var healthy = false
        while !healthy, server.process.isRunning, ContinuousClock.now < deadline {
            if let (status, _) = try? await ServeCommandTests().get(base + "/health"), status == 200 {
                healthy = true
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        guard healthy else {
            await server.kill()
            Issue.record("\(service.name) did not start: \(server.stderr)")
            return
        }
        let settings = try await ServeCommandTests().get(base + "/settings")
        #expect(settings.0 == 200)
        let emailOn = service.environment["GOTRUE_EXTERNAL_EMAIL_ENABLED"] != "false"
        let external = (try? JSONSerialization.jsonObject(with: Data(settings.1.utf8)) as? [String: Any])?["external"] as? [String: Any]
        #expect(external?["email"] as? Bool == emailOn, "\(service.name): \(settings.1)")
        server.process.send(SIGTERM)
        #expect(await server.wait(upTo: 30), "\(service.name) stops on SIGTERM")
        let log = server.stderr
        for warning in Self.expectedWarnings(service.environment) {
            #expect(log.contains(warning), "\(service.name) warns \(warning): \(log)")
        }
        if !Self.expectedWarnings(service.environment).contains(Self.smsWarning) { #expect(!log.contains(Self.smsWarning), "\(service.name)") }
        #expect(!log.contains("Fatal error"))
        #expect(!log.contains(service.environment["GOTRUE_JWT_SECRET"] ?? "-"), "the secret is never logged")
    }

    @Test("serve --check prints the warnings and exits 0; a refused setting exits non-zero")
    func check() async throws {
        for service in ComposeEnvironments.all {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-check-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: data) }
            let result = try await CommandRunner.run(["serve", "--check", "--data-dir", data.path], environment: service.environment)
            #expect(result.status == 0, "\(service.name): \(result.stderr)")
            let expected = Self.expectedWarnings(service.environment)
            for warning in expected { #expect(result.stdout.contains(warning), "\(service.name): \(result.stdout)") }
            #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.count == expected.count, "\(result.stdout)")
            #expect(!FileManager.default.fileExists(atPath: data.path), "--check writes nothing")
        }
        let refused = try await CommandRunner.run(
            ["serve", "--check", "--data-dir", FileManager.default.temporaryDirectory.path], environment: ["GOTRUE_JWT_SECRET": "short"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("must be at least 32 bytes"), "\(refused.stderr)")
        let clean = try await CommandRunner.run(["serve", "--check", "--data-dir", FileManager.default.temporaryDirectory.path])
        #expect(clean.status == 0 && clean.stdout.contains("no warnings"), "\(clean.stdout) \(clean.stderr)")
    }

    @Test("serve --check: Keycloak without its URL, an incomplete Apple key and a hook without its URI start, each with its warning")
    func checkProvidersAndHooks() async throws {
        let result = try await CommandRunner.run(
            ["serve", "--check", "--data-dir", FileManager.default.temporaryDirectory.path],
            environment: [
                "GOTRUE_EXTERNAL_KEYCLOAK_ENABLED": "true", "GOTRUE_EXTERNAL_KEYCLOAK_URL": "", "LATCHKEY_EXTERNAL_APPLE_TEAM_ID": "TEAM123456",
                "GOTRUE_HOOK_SEND_SMS_ENABLED": "true", "GOTRUE_HOOK_SEND_SMS_URI": "",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stdout.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
        #expect(warnings.count == 3, "\(result.stdout)")
        for name in ["GOTRUE_EXTERNAL_KEYCLOAK_URL", "LATCHKEY_EXTERNAL_APPLE_KEY_ID", "GOTRUE_HOOK_SEND_SMS_URI"] {
            #expect(warnings.contains { $0.contains(name) }, "\(name): \(result.stdout)")
        }
    }
}
