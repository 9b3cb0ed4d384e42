import ArgumentParser
import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ClientOptions {
    /// Runs a client command's body with a live ``ClientContext``. Every failure becomes a
    /// plain-language message on stderr and a documented exit code (``ExitStatus``); nothing
    /// escapes as a raw error or a stack trace.
    func run(_ body: (ClientContext) async throws -> Void) async throws {
        // Everything the command creates (state directory, profile, lock, sealed files) is
        // for its owner only.
        umask(0o077)
        let terminal = Terminal.standard()
        do {
            let context = try ClientContext.live(self)
            try await body(context)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            let failure = Self.failure(for: error)
            for line in failure.lines { terminal.message(line) }
            throw failure.status.exitCode
        }
    }

    /// Any error in the command's words.
    static func failure(for error: any Error) -> ClientFailure {
        switch error {
        case let failure as ClientFailure:
            return failure
        case let failure as AuthFailure:
            return ClientFailure(failure, profile: ProfileName.defaultName, server: nil)
        case is CancellationError:
            return ClientFailure(.other, "Cancelled.")
        default:
            return ClientFailure(.other, "Something went wrong. Please try again.", hint: "Run with --verbose to see more.")
        }
    }
}
