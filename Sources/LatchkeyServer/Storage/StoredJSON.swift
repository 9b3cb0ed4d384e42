import Foundation
import LatchkeyWire

extension Dictionary where Key == String, Value == JSONValue {
    /// Compact JSON with sorted keys, as metadata and audit traits are stored.
    func jsonString() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses a stored JSON object; `nil` or empty text is an empty object, and so is text that
    /// is not a JSON object (the columns are written only by ``jsonString()``).
    static func fromJSONString(_ string: String?) -> [String: JSONValue] {
        // Most accounts carry no metadata: no parser for the stored "{}".
        guard let string, !string.isEmpty, string != "{}", case .object(let dictionary)? = try? JSONValue(parsing: string) else { return [:] }
        return dictionary
    }
}
