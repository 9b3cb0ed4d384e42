import Foundation

/// Python modules written by others that tests run as peers (`firebase_scrypt`, `bcrypt`).
package enum PythonPeer {
    /// Whether `python3` can import `module` (asked once per peer, when the tests are planned,
    /// through ``ChildProcess``: Foundation's `Process.run()` crashes now and then on Linux).
    package static func canImport(_ module: String) -> Bool {
        guard
            let child = try? ChildProcess(
                executable: "/usr/bin/env", arguments: ["python3", "-c", "import \(module)"],
                environment: ProcessInfo.processInfo.environment)
        else { return false }
        return child.terminationStatus == 0
    }

    /// Runs `script` with `argument` as its one argument and decodes what it prints as JSON.
    package static func run<Output: Decodable>(_ script: String, argument: String, as type: Output.Type) async throws -> Output {
        let (status, output) = try await ChildProcess.run(
            executable: "/usr/bin/env", arguments: ["python3", "-c", script, argument], environment: ProcessInfo.processInfo.environment)
        guard status == 0, let decoded = try? JSONDecoder().decode(Output.self, from: output) else {
            throw PeerFailure(description: "python3 exited with \(status)")
        }
        return decoded
    }

    package struct PeerFailure: Error, CustomStringConvertible {
        package var description: String
    }
}
