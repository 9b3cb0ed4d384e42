import Foundation

/// A JSON value of any shape, used for `user_metadata` and `app_metadata`.
///
/// Metadata is stored and served exactly as the client sent it, so it is kept as a
/// tree of JSON values rather than a fixed type.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Most metadata values are strings: try them first, since every failed attempt costs.
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
            if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The string inside a `.string` value.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The dictionary inside an `.object` value.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// Serialises metadata to a compact JSON string for storage.
    func jsonString() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses metadata stored by ``jsonString()``; anything unreadable is an empty object.
    ///
    /// Uses `JSONSerialization`, several times faster than `Codable` for a value of unknown
    /// shape: every bearer check reads a user's metadata.
    static func fromJSONString(_ string: String?) -> [String: JSONValue] {
        guard let string, !string.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: Data(string.utf8)),
            case .object(let dictionary) = JSONValue(foundation: object)
        else { return [:] }
        return dictionary
    }
}

extension JSONValue {
    /// Converts what `JSONSerialization` returns.
    init(foundation value: Any) {
        switch value {
        case let string as String: self = .string(string)
        case let number as NSNumber:
            // JSONSerialization returns booleans as NSNumbers of type char ("c").
            self = String(cString: number.objCType) == "c" ? .bool(number.boolValue) : .number(number.doubleValue)
        case let array as [Any]: self = .array(array.map(JSONValue.init(foundation:)))
        case let dictionary as [String: Any]: self = .object(dictionary.mapValues(JSONValue.init(foundation:)))
        default: self = .null
        }
    }
}
