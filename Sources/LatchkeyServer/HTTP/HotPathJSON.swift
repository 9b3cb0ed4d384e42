import Foundation
import LatchkeyWire

/// A wire answer written straight to JSON bytes, for the answers of the hot paths (`GET /user`,
/// every grant of `/token`): Foundation's `JSONEncoder` spent more time on a user than the
/// database did. The document is the one `JSONEncoder()` writes for the same value — the same
/// fields (absent optionals left out), strings escaped as it escapes them (`/` included),
/// numbers as ``JSONValue`` encodes them — with the fields in declaration order rather than
/// the encoder's hash order. `HotPathJSONTests` checks it against the encoder.
protocol HotPathJSONEncodable {
    func write(to json: inout HotPathJSON)
}

/// The bytes of one JSON document, written in order.
struct HotPathJSON {
    private(set) var bytes: [UInt8] = []
    /// Whether the next key or array element needs a comma before it.
    private var afterValue = false

    init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// `value` as its document.
    static func encode(_ value: some HotPathJSONEncodable) -> [UInt8] {
        var json = HotPathJSON()
        value.write(to: &json)
        return json.bytes
    }

    // MARK: Objects

    /// Writes `{`, the fields `body` writes, and `}`.
    mutating func object(_ body: (inout HotPathJSON) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        afterValue = false
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        afterValue = true
    }

    private mutating func key(_ name: StaticString) {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        afterValue = false
    }

    mutating func field(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    /// Left out when `nil`, as `encodeIfPresent`.
    mutating func field(_ name: StaticString, _ value: String?) {
        if let value { field(name, value) }
    }

    mutating func field(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: String(value).utf8)
        afterValue = true
    }

    mutating func field(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        literal(value ? "true" : "false")
    }

    mutating func field(_ name: StaticString, _ value: [String: JSONValue]?) {
        guard let value else { return }
        key(name)
        object(value)
    }

    mutating func field(_ name: StaticString, _ value: some HotPathJSONEncodable) {
        key(name)
        value.write(to: &self)
    }

    mutating func field(_ name: StaticString, _ values: [some HotPathJSONEncodable]?) {
        guard let values else { return }
        key(name)
        array(values) { json, value in value.write(to: &json) }
    }

    /// Left out when `nil`, as `encodeIfPresent`.
    mutating func field(_ name: StaticString, _ values: [String]?) {
        guard let values else { return }
        key(name)
        value(.array(values.map(JSONValue.string)))
    }

    /// Written as `null` when `nil`, as `encode(_:forKey:)` of an optional.
    mutating func fieldOrNull(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { literal("null") }
    }

    // MARK: Values

    private mutating func literal(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        afterValue = true
    }

    mutating func value(_ value: JSONValue) {
        switch value {
        case .null: literal("null")
        case .bool(let flag): literal(flag ? "true" : "false")
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let values): array(values) { json, element in json.value(element) }
        case .object(let members): object(members)
        }
    }

    /// Writes `[`, each element as `write` writes it, comma-separated, and `]`.
    private mutating func array<Elements: Sequence>(_ elements: Elements, _ write: (inout HotPathJSON, Elements.Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        afterValue = false
        for element in elements {
            if afterValue { bytes.append(UInt8(ascii: ",")) }
            write(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
        afterValue = true
    }

    mutating func object(_ members: [String: JSONValue]) {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for (key, member) in members {
            if first { first = false } else { bytes.append(UInt8(ascii: ",")) }
            string(key)
            bytes.append(UInt8(ascii: ":"))
            value(member)
        }
        bytes.append(UInt8(ascii: "}"))
        afterValue = true
    }

    /// A whole number within ±2⁵³ without a fraction, as ``JSONValue`` encodes it; any other
    /// finite number as Swift prints it. A JSON value never holds NaN or an infinity.
    private mutating func number(_ number: Double) {
        if let integer = JSONValue.exactInteger(number) {
            bytes.append(contentsOf: String(integer).utf8)
        } else if number.isFinite {
            var text = number.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            bytes.append(contentsOf: text.utf8)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
        afterValue = true
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A string in quotes with `"`, `\`, `/` and control characters escaped, everything else as
    /// UTF-8.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "/"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "/")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x00..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(contentsOf: [Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        afterValue = true
    }
}

// MARK: - The hot paths' answers

extension UserResponse: HotPathJSONEncodable {
    /// The fields in declaration order, as the synthesized `Encodable` writes them.
    func write(to json: inout HotPathJSON) {
        json.object { object in
            object.field("id", id)
            object.field("aud", aud)
            object.field("role", role)
            object.field("email", email)
            object.field("email_confirmed_at", email_confirmed_at)
            object.field("phone", phone)
            object.field("phone_confirmed_at", phone_confirmed_at)
            object.field("confirmation_sent_at", confirmation_sent_at)
            object.field("confirmed_at", confirmed_at)
            object.field("recovery_sent_at", recovery_sent_at)
            object.field("new_email", new_email)
            object.field("email_change_sent_at", email_change_sent_at)
            object.field("new_phone", new_phone)
            object.field("phone_change_sent_at", phone_change_sent_at)
            object.field("last_sign_in_at", last_sign_in_at)
            object.field("app_metadata", app_metadata)
            object.field("user_metadata", user_metadata)
            object.field("identities", identities)
            object.field("banned_until", banned_until)
            object.field("created_at", created_at)
            object.field("updated_at", updated_at)
            object.field("is_anonymous", is_anonymous)
            object.field("invited_at", invited_at)
            object.field("factors", factors)
        }
    }
}

extension UserResponse.Identity: HotPathJSONEncodable {
    func write(to json: inout HotPathJSON) {
        json.object { object in
            object.field("identity_id", identity_id)
            object.field("id", id)
            object.field("user_id", user_id)
            object.field("identity_data", identity_data)
            object.field("provider", provider)
            object.field("last_sign_in_at", last_sign_in_at)
            object.field("created_at", created_at)
            object.field("updated_at", updated_at)
            object.field("email", email)
        }
    }
}

extension FactorResponse: HotPathJSONEncodable {
    /// As ``FactorResponse/encode(to:)``: an empty name left out, `phone` and
    /// `last_challenged_at` as `null` when absent.
    func write(to json: inout HotPathJSON) {
        json.object { object in
            object.field("id", id)
            object.field("created_at", created_at)
            object.field("updated_at", updated_at)
            object.field("status", status)
            if let friendly_name, !friendly_name.isEmpty { object.field("friendly_name", friendly_name) }
            object.field("factor_type", factor_type)
            object.fieldOrNull("phone", phone)
            object.fieldOrNull("last_challenged_at", last_challenged_at)
        }
    }
}

extension SessionResponse: HotPathJSONEncodable {
    func write(to json: inout HotPathJSON) {
        json.object { object in
            object.field("access_token", access_token)
            object.field("token_type", token_type)
            object.field("expires_in", expires_in)
            object.field("expires_at", expires_at)
            object.field("refresh_token", refresh_token)
            object.field("user", user)
            if let weak_password { object.field("weak_password", weak_password) }
        }
    }
}

extension SessionResponse.WeakPasswordNotice: HotPathJSONEncodable {
    func write(to json: inout HotPathJSON) {
        json.object { object in
            object.field("message", message)
            object.field("reasons", reasons)
        }
    }
}
