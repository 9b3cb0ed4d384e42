import Foundation
import Latchkey
import LatchkeyTesting
import Logging
import Testing

@testable import LatchkeyCommand

/// The client core with its dependencies injected: no process, no network, no real keyring.
@Suite("latchkey client core: state location, store choice, error words and exit codes")
struct ClientCoreTests {
    /// A context over `keyring` with a temporary state directory.
    func context(keyring: any CredentialStore, store: StoreOption? = nil) -> ClientContext {
        ClientContext(
            profile: "default", home: StateDirectory(root: TemporaryDirectory.make("latchkey-core")), environment: [:],
            terminal: Terminal(inputIsTerminal: false, outputIsTerminal: false, errorIsTerminal: false),
            clock: ManualSessionClock(), transport: UnreachableTransport(), keyring: { _ in keyring },
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), timeout: 5, storeOption: store)
    }

    @Test("LATCHKEY_HOME, else an absolute XDG_CONFIG_HOME, else ~/.config")
    func stateDirectoryResolution() {
        #expect(StateDirectory.resolve(environment: ["LATCHKEY_HOME": "/srv/lk", "XDG_CONFIG_HOME": "/x"]).root.path == "/srv/lk")
        #expect(StateDirectory.resolve(environment: ["XDG_CONFIG_HOME": "/x/config", "HOME": "/home/a"]).root.path == "/x/config/latchkey")
        #expect(
            StateDirectory.resolve(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/a"]).root.path == "/home/a/.config/latchkey",
            "a relative XDG_CONFIG_HOME is ignored, as the spec says")
        #expect(StateDirectory.resolve(environment: ["LATCHKEY_HOME": "", "HOME": "/home/b"]).root.path == "/home/b/.config/latchkey")
    }

    @Test("profile names are safe directory names")
    func profileNames() {
        for good in ["default", "work", "a.b_c-1", String(repeating: "x", count: 64)] { #expect(ProfileName.isValid(good), "\(good)") }
        for bad in ["", ".hidden", "../up", "a/b", "spa ce", "é", String(repeating: "x", count: 65)] { #expect(!ProfileName.isValid(bad), "\(bad)") }
    }

    @Test("auto: the keyring when it keeps a probe, else the encrypted file store; keyring: a clear error when locked")
    func storeChoice() async throws {
        let working = MemoryCredentialStore()
        #expect(try await context(keyring: working).storeForSignIn().kind == .keyring)
        #expect(await working.keys.isEmpty, "the probe item is removed")
        #expect(try await context(keyring: working, store: .file).storeForSignIn().kind == .file)

        let locked = FailingStore(error: .locked)
        #expect(try await context(keyring: locked).storeForSignIn().kind == .file)
        await #expect(throws: ClientFailure(.other, "The desktop keyring is locked.", hint: ClientFailure.storageHint(.locked))) {
            try await context(keyring: locked, store: .keyring).storeForSignIn()
        }
    }

    @Test("keyring items are per profile and per state directory")
    func keyringKeys() {
        let home = StateDirectory(root: URL(fileURLWithPath: "/tmp/h1"))
        let store = MemoryCredentialStore()
        let a = ProfileCredentials.open(.keyring, profile: "a", profileDirectory: home.profileDirectory("a"), home: home, keyring: { _ in store })
        let b = ProfileCredentials.open(.keyring, profile: "b", profileDirectory: home.profileDirectory("b"), home: home, keyring: { _ in store })
        let otherHome = StateDirectory(root: URL(fileURLWithPath: "/tmp/h2"))
        let c = ProfileCredentials.open(
            .keyring, profile: "a", profileDirectory: otherHome.profileDirectory("a"), home: otherHome, keyring: { _ in store })
        #expect(Set([a.key, b.key, c.key]).count == 3)
    }

    @Test("the taxonomy in words and exit codes: 1 sign in again, 2 input, 3 network, 4 other")
    func failureMapping() {
        func status(_ category: AuthFailure.Category) -> CommandExit {
            ClientFailure(AuthFailure(category), profile: "default", server: "http://s").status
        }
        #expect(status(.invalidCredentials) == .notSignedIn)
        #expect(status(.emailNotConfirmed) == .notSignedIn)
        #expect(status(.accountDisabled) == .notSignedIn)
        #expect(status(.sessionRevoked) == .notSignedIn)
        #expect(status(.notSignedIn) == .notSignedIn)
        #expect(status(.invalidInput) == .usage)
        #expect(status(.network) == .network)
        #expect(status(.server) == .other)
        #expect(status(.rateLimited(retryAfter: 90)) == .other)
        #expect(status(.storage(.locked)) == .other)
        #expect(status(.accountExists) == .other)

        let limited = ClientFailure(AuthFailure(.rateLimited(retryAfter: 90)), profile: "default", server: nil)
        #expect(
            limited.lines == [
                "latchkey: Too many login attempts. Please wait a few minutes and try again.", "  The server asks to wait 1 min before trying again.",
            ])
        let revoked = ClientFailure(signedOut: .sessionRevoked(code: "session_not_found"), profile: "work")
        #expect(
            revoked.lines == [
                "latchkey: Your session has ended: it was signed out or revoked on the server.",
                "  Run 'latchkey login --profile work' to sign in again.",
            ])
        #expect(ClientFailure(signedOut: .userDeleted, profile: "default").status == .notSignedIn)
        #expect(ClientFailure(signedOut: .offlineGracePeriodExceeded, profile: "default").status == .network)
        #expect(ClientFailure(signedOut: .storageFailure(.corrupted(reason: "x")), profile: "default").status == .other)
        #expect(CommandExit.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
    }

    @Test("durations in words")
    func durations() {
        #expect(Durations.spoken(42.9) == "42 s")
        #expect(Durations.spoken(3599) == "59 min")
        #expect(Durations.spoken(3600) == "1 h")
        #expect(Durations.spoken(3 * 3600 + 5 * 60) == "3 h 5 min")
        #expect(Durations.spoken(86_400) == "1 day")
        #expect(Durations.spoken(9 * 86_400) == "9 days")
        #expect(Durations.relative(Date(timeIntervalSince1970: 100), now: Date(timeIntervalSince1970: 40)) == "in 1 min")
        #expect(Durations.relative(Date(timeIntervalSince1970: 40), now: Date(timeIntervalSince1970: 100)) == "1 min ago")
    }
}

/// The command's exit codes (Swift Testing has an `ExitStatus` too).
typealias CommandExit = LatchkeyCommand.ExitStatus

/// A store that always fails with `error`, like a locked or absent keyring.
struct FailingStore: CredentialStore {
    let error: StorageError
    func load(key: String) async throws -> Data? { throw error }
    func save(_ data: Data, key: String) async throws { throw error }
    func delete(key: String) async throws { throw error }
}

/// A transport with no network behind it.
struct UnreachableTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { throw BackendError.transport(.offline) }
}
