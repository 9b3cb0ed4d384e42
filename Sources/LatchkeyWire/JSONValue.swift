import Foundation

/// A JSON value of any shape: the free-form `user_metadata` and `app_metadata` of a user, and
/// the traits of an audit entry.
///
/// Metadata is kept exactly as the client sent it, as a tree of JSON values rather than a
/// fixed type. The server encodes it and the client decodes it with this one type, so both
/// agree on every edge case:
///
/// - `true`/`false` decode as ``bool(_:)``, never as a number.
/// - Every number decodes as ``number(_:)``; a whole number within ±2⁵³ encodes without a
///   fraction (`3`, not `3.0`), so integers survive a round trip unchanged.
/// - Anything that is not JSON (such as a date or raw data from a custom encoder) fails to
///   decode with a `DecodingError` rather than turning into a default value.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Strings are the most common metadata values: tried first, since each miss costs.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if let integer = Self.exactInteger(value) {
                try container.encode(integer)
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// `value` as an integer when it is whole and exactly representable (within ±2⁵³).
    package static func exactInteger(_ value: Double) -> Int64? {
        guard value.isFinite, value.rounded() == value, abs(value) <= 9_007_199_254_740_992 else { return nil }
        return Int64(value)
    }

    /// The string inside a ``string(_:)`` value, or `nil` for any other kind.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The Boolean inside a ``bool(_:)`` value, or `nil` for any other kind.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number inside a ``number(_:)`` value, or `nil` for any other kind.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The dictionary inside an ``object(_:)`` value, or `nil` for any other kind.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements of an ``array(_:)`` value, or `nil` for any other kind.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }
}
