import Foundation
import Testing

/// A user's shell for the `latchkey` client commands: its own `LATCHKEY_HOME`, and every run a
/// new process, as when someone opens a new terminal.
struct ClientSandbox: Sendable {
    /// The state directory the commands use.
    let home: URL
    /// Extra environment for every run (e.g. a private keyring's D-Bus address).
    var environment: [String: String] = [:]

    /// Environment a developer's shell may carry that would change what the commands do.
    static let ambient = ["LATCHKEY_PROFILE", "LATCHKEY_SERVER", "LATCHKEY_HOME", "XDG_CONFIG_HOME"]

    /// The commands that talk to a server and take `--timeout`.
    static let clientCommands: Set<String> = ["signup", "login", "status", "token", "whoami", "logout", "reset-password", "mfa"]

    init(environment: [String: String] = [:]) {
        home = TemporaryDirectory.make("latchkey-cli-home")
        self.environment = environment
    }

    /// Runs `latchkey arguments…` to completion (without blocking a test thread).
    func run(_ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]) async throws -> CommandRunner.Result {
        let running = try start(arguments, input: input, environment: extra)
        let finished = await running.wait(upTo: 120)
        #expect(finished, "latchkey \(arguments.joined(separator: " ")) did not finish")
        if !finished { await running.kill() }
        let result = await running.result()
        #expect(!result.stderr.contains("Fatal error"), "a Swift runtime failure: \(result.stderr)")
        #expect(!result.stderr.contains("Stack dump"), "a stack trace: \(result.stderr)")
        return result
    }

    /// Starts `latchkey arguments…` without waiting.
    func start(_ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]) throws -> CommandRunner.Running {
        var arguments = arguments
        // A loaded CI machine (parallel tests, bcrypt) can take longer than the 10 s default to
        // answer; tests about timeouts pass their own --timeout.
        if let command = arguments.first, Self.clientCommands.contains(command), !arguments.contains("--timeout") {
            arguments += ["--timeout", "60"]
        }
        var variables = ["LATCHKEY_HOME": home.path]
        for (key, value) in environment { variables[key] = value }
        for (key, value) in extra { variables[key] = value }
        return try CommandRunner.start(arguments, environment: variables, input: input, removing: Self.ambient)
    }

    /// Starts `latchkey arguments…` with a pipe as standard input, for a test to write to while
    /// the command runs (an emailed code, once the mail is in the outbox).
    func startWithPipe(_ arguments: [String]) throws -> (CommandRunner.Running, FileHandle) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw CocoaError(.fileWriteUnknown) }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var arguments = arguments
        if let command = arguments.first, Self.clientCommands.contains(command), !arguments.contains("--timeout") {
            arguments += ["--timeout", "60"]
        }
        var variables = ["LATCHKEY_HOME": home.path]
        for (key, value) in environment { variables[key] = value }
        let running = try CommandRunner.start(arguments, environment: variables, inputDescriptor: descriptors[0], removing: Self.ambient)
        return (running, FileHandle(fileDescriptor: descriptors[1], closeOnDealloc: true))
    }

    /// `latchkey login` with the password on stdin.
    @discardableResult
    func login(
        _ server: ClientTestServer, email: String, password: String, store: String = "file", profile: String? = nil
    ) async throws -> CommandRunner.Result {
        try await run(
            ["login", "--server", server.url, "--email", email, "--password-stdin", "--store", store] + (profile.map { ["--profile", $0] } ?? []),
            input: password + "\n")
    }

    /// `latchkey signup` with the password on stdin.
    @discardableResult
    func signup(_ server: ClientTestServer, email: String, password: String, store: String = "file") async throws -> CommandRunner.Result {
        try await run(["signup", "--server", server.url, "--email", email, "--password-stdin", "--store", store], input: password + "\n")
    }

    /// The access token `latchkey token` prints (trimmed), after checking it exited 0.
    func token(profile: String? = nil) async throws -> String {
        let result = try await run(["token"] + (profile.map { ["--profile", $0] } ?? []))
        #expect(result.status == 0, "token failed: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every file and directory under the home, with its permission bits.
    func entries() throws -> [(path: String, mode: Int, isDirectory: Bool)] {
        var found: [(String, Int, Bool)] = []
        let manager = FileManager.default
        guard manager.fileExists(atPath: home.path) else { return [] }
        let rootAttributes = try manager.attributesOfItem(atPath: home.path)
        found.append((home.path, (rootAttributes[.posixPermissions] as? Int) ?? -1, true))
        for relative in try manager.subpathsOfDirectory(atPath: home.path) {
            let path = home.appendingPathComponent(relative).path
            let attributes = try manager.attributesOfItem(atPath: path)
            found.append((path, (attributes[.posixPermissions] as? Int) ?? -1, attributes[.type] as? FileAttributeType == .typeDirectory))
        }
        return found
    }

    /// Whether any file under the home contains `secret` (as bytes, or Base64-encoded).
    func containsInPlainText(_ secret: String) throws -> Bool {
        let needles = [Data(secret.utf8), Data(Data(secret.utf8).base64EncodedString().utf8)]
        for entry in try entries() where !entry.isDirectory {
            let data = try Data(contentsOf: URL(fileURLWithPath: entry.path))
            if needles.contains(where: { data.range(of: $0) != nil }) { return true }
        }
        return false
    }

    /// The profile directory of `profile`.
    func profileDirectory(_ profile: String = "default") -> URL {
        home.appendingPathComponent("profiles/\(profile)", isDirectory: true)
    }

    func remove() {
        try? FileManager.default.removeItem(at: home)
    }
}
