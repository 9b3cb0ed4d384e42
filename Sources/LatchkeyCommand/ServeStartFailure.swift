import ArgumentParser
import Foundation
import LatchkeyServer
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why `latchkey serve` could not start (or stopped), in one plain sentence on stderr with what
/// to do — never a raw NIO or SQLite error text.
enum ServeStartFailure {
    /// The sentence for `error`, from a server configured with `configuration`.
    static func sentence(for error: any Error, configuration: ServerConfiguration) -> String {
        let address = "\(configuration.host):\(configuration.port)"
        switch error {
        case let error as IOError:
            switch error.errnoCode {
            case EADDRINUSE:
                return
                    "Port \(configuration.port) is already in use on \(configuration.host) (another latchkey serve?); stop that program or choose another port with --port."
            case EACCES:
                return "Not allowed to listen on \(address): ports below 1024 need privileges; choose another port with --port."
            case EADDRNOTAVAIL:
                return "Cannot listen on \(address): \(configuration.host) is not an address of this computer; choose another with --host."
            default:
                return "Cannot listen on \(address): \(String(cString: strerror(error.errnoCode))); check --host and --port."
            }
        case StoreError.unavailable:
            return
                "Cannot start: the database cannot be reached or prepared; check --database and that the database server is running (--log-level debug shows the driver's error)."
        default:
            let directory = configuration.dataDirectory.path
            if !isWritableDirectory(directory) {
                return
                    "Cannot start: the data directory \(directory) cannot be created or written by this user; fix its permissions or choose another with --data-dir."
            }
            if configuration.databaseURL == nil {
                return
                    "Cannot start: the database in \(directory) cannot be opened or written; check the permissions of latchkey.sqlite there, or choose another --data-dir."
            }
            return "Cannot start the server (\(type(of: error))); run with --log-level debug for details."
        }
    }

    /// Prints the sentence for `error` and exits with 1. The error itself goes to the debug log
    /// (the store's texts name the database without its password).
    static func exit(_ error: any Error, configuration: ServerConfiguration, logger: Logger) -> ExitCode {
        if case StoreError.unavailable(let reason) = error {
            logger.debug("cannot start", metadata: ["reason": "\(reason)"])
        } else {
            logger.debug("cannot start", metadata: ["error": "\(error)"])
        }
        Terminal.writeError("latchkey: \(sentence(for: error, configuration: configuration))\n")
        return ExitCode.failure
    }

    private static func isWritableDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            && access(path, W_OK | X_OK) == 0
    }
}
