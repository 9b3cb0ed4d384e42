import Foundation
import Logging
import NIOConcurrencyHelpers

/// Keeps every log line, message and metadata rendered as text, so a test can prove what a
/// component logs and, above all, what it never logs (a password, a token, an email address).
///
/// ```swift
/// let logs = LogCapture()
/// let manager = SessionManager(backend: backend, store: store, logger: logs.logger)
/// // ... sign in, refresh, sign out ...
/// #expect(!logs.lines.contains { $0.contains(password) })
/// ```
public final class LogCapture: Sendable {
    private let storage = NIOLockedValueBox<[String]>([])

    public init() {}

    /// A logger at `trace` level whose every line this capture keeps.
    public var logger: Logger {
        logger(label: "latchkey.testing.capture")
    }

    /// A logger with `label` at `trace` level whose every line this capture keeps.
    public func logger(label: String) -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    /// A log handler factory, for `LoggingSystem.bootstrap` or `Logger(label:factory:)`.
    public func handler(label: String) -> any LogHandler {
        Handler(capture: self)
    }

    /// Every line so far, oldest first: `level message key=value key=value` (keys sorted).
    public var lines: [String] { storage.withLockedValue { $0 } }

    /// Forgets the lines so far.
    public func clear() {
        storage.withLockedValue { $0.removeAll() }
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 })
            let rendered = merged.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
            let line = "\(event.level) \(event.message) \(rendered)"
            capture.storage.withLockedValue { $0.append(line) }
        }
    }
}
