import Foundation
import LatchkeyTestSupport
import Testing

/// A private D-Bus session bus with an unlocked GNOME Keyring in a temporary directory: the
/// Linux desktop keyring, for real, isolated from the machine's own keyring (and its password).
///
/// Needs `dbus-daemon` and `gnome-keyring-daemon` (`apt-get install dbus gnome-keyring
/// libsecret-1-0`); `.ci/run` installs them. Pass ``environment`` to the commands under test.
final class PrivateKeyring: Sendable {
    /// The keyring's password (it unlocks the fresh "login" collection).
    static let password = "latchkey-test"

    /// Whether libsecret and the daemons are installed (Linux only: the desktop keyring).
    static let toolsAvailable: Bool = {
        #if os(Linux)
        return executable("dbus-daemon") != nil && executable("gnome-keyring-daemon") != nil
            && dlopen("libsecret-1.so.0", RTLD_LAZY) != nil
        #else
        return false
        #endif
    }()

    /// Why the keyring tests are skipped, when they are.
    static let skipReason: Comment =
        "no Linux desktop keyring to run: install libsecret-1-0, gnome-keyring and dbus (.ci/run does, then scripts/test.sh runs these)"

    let directory: URL
    let address: String
    private let processes: [ChildProcess]

    /// Environment that points libsecret at this keyring.
    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    private init(directory: URL, address: String, processes: [ChildProcess]) {
        self.directory = directory
        self.address = address
        self.processes = processes
    }

    /// Starts the bus and the keyring daemon; returns once the keyring is unlocked and owns
    /// `org.freedesktop.secrets` on the bus.
    ///
    /// Both run in the foreground as children of the test, spawned with `posix_spawn`
    /// (``ChildProcess``): Foundation's `Process.run()` crashes now and then on Linux.
    static func start() async throws -> PrivateKeyring {
        guard let dbusDaemon = executable("dbus-daemon"), let keyringDaemon = executable("gnome-keyring-daemon") else {
            throw Failure("dbus-daemon or gnome-keyring-daemon is not installed")
        }
        // Short path: a unix socket path must fit in 108 bytes.
        let directory = URL(fileURLWithPath: "/tmp/lk-keyring-\(UUID().uuidString.prefix(8))", isDirectory: true)
        for sub in ["data", "run", "config", "cache"] {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(sub), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let socket = directory.appendingPathComponent("bus").path
        let address = "unix:path=\(socket)"
        let environment = isolatedEnvironment(directory, address: address)

        let bus = try ChildProcess(
            executable: dbusDaemon.path, arguments: ["--session", "--nofork", "--nopidfile", "--address=\(address)"],
            environment: environment)
        var keyring = PrivateKeyring(directory: directory, address: address, processes: [bus])
        // Generous: each daemon can take many seconds to start on a loaded machine; a daemon that
        // exits ends the wait at once.
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date() < deadline, bus.isRunning else {
                keyring.stop()
                throw Failure("dbus-daemon did not start")
            }
            try await Task.sleep(for: .milliseconds(20))
        }

        // --unlock reads the password from stdin and creates the "login" keyring with it.
        let (inputRead, inputWrite) = try ChildProcess.makePipe()
        let daemon: ChildProcess
        do {
            daemon = try ChildProcess(
                executable: keyringDaemon.path, arguments: ["--foreground", "--unlock", "--components=secrets"],
                environment: environment, standardInput: inputRead)
        } catch {
            close(inputRead)
            close(inputWrite)
            keyring.stop()
            throw error
        }
        close(inputRead)
        keyring = PrivateKeyring(directory: directory, address: address, processes: [daemon, bus])
        let input = FileHandle(fileDescriptor: inputWrite, closeOnDealloc: true)
        input.write(Data(password.utf8))
        try input.close()

        while try await !serviceRegistered(address: address, environment: environment) {
            guard Date() < deadline, daemon.isRunning else {
                keyring.stop()
                throw Failure("gnome-keyring-daemon did not come up on the private bus")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return keyring
    }

    /// Whether the Secret Service name is owned on the bus (asked with `dbus-send`; without
    /// it, a short wait stands in).
    private static func serviceRegistered(address: String, environment: [String: String]) async throws -> Bool {
        guard let dbusSend = executable("dbus-send") else {
            try await Task.sleep(for: .seconds(1))
            return true
        }
        let (_, data) = try await ChildProcess.run(
            executable: dbusSend.path,
            arguments: [
                "--bus=\(address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets",
            ],
            environment: environment)
        return String(decoding: data, as: UTF8.self).contains("boolean true")
    }

    /// Stops the keyring daemon and the bus and removes the directory. SIGKILL: children of
    /// the test process may inherit a blocked SIGTERM.
    func stop() {
        for process in processes where process.isRunning {
            process.send(SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    private static func isolatedEnvironment(_ directory: URL, address: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for key in ["DISPLAY", "WAYLAND_DISPLAY", "GNOME_KEYRING_CONTROL", "SSH_AUTH_SOCK"] { environment.removeValue(forKey: key) }
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["HOME"] = directory.path
        environment["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
        environment["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("run").path
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        environment["XDG_CACHE_HOME"] = directory.appendingPathComponent("cache").path
        return environment
    }

    private static func executable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let url = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
