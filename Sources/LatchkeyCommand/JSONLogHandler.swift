import Foundation
import Logging

/// `--log-format json`: one JSON object per line on standard error, with `time` (ISO 8601,
/// UTC), `level`, `msg`, `logger` and the metadata as further keys (`request` logs carry
/// `method`, `path`, `status`, `duration_ms` and `client_ip`).
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    init(label: String) {
        self.label = label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        FileHandle.standardError.write(
            Self.line(label: label, level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }

    /// The JSON line for one event.
    static func line(label: String, level: Logger.Level, message: String, metadata: Logger.Metadata, date: Date = Date()) -> Data {
        var object: [String: Any] = [:]
        for (key, value) in metadata {
            // Reserved keys stay the handler's own; a clashing metadata key is kept under a prefix.
            let name = ["time", "level", "msg", "logger"].contains(key) ? "meta_" + key : key
            object[name] = json(value)
        }
        object["time"] = date.formatted(.iso8601)
        object["level"] = level.rawValue
        object["msg"] = message
        object["logger"] = label
        var data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }
}

/// How `serve` writes its log: `text` (swift-log's default, one line per event) or `json`.
enum LogFormat: String, CaseIterable, Sendable {
    case text, json

    /// Installs the format for this process (once, before the first logger is made).
    func bootstrap() {
        switch self {
        case .text: LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        case .json: LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
        }
    }
}
