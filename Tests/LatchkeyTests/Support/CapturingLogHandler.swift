import Foundation
@testable import Latchkey
import LatchkeyTestSupport
import Logging

/// Keeps every log line (message and metadata rendered as text) so tests can prove what never
/// appears in logs.
final class CapturedLogs: Sendable {
    let lines = LockedValue<[String]>([])

    var logger: Logger {
        var logger = Logger(label: "latchkey.tests.capture") { _ in CapturingLogHandler(sink: self) }
        logger.logLevel = .trace
        return logger
    }

    var all: [String] { lines.withLock { $0 } }
}

struct CapturingLogHandler: LogHandler {
    let sink: CapturedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 })
        let line = "\(event.level) \(event.message) \(merged.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))"
        sink.lines.withLock { $0.append(line) }
    }
}
