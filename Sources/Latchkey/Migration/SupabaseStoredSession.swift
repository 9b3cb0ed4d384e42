import Foundation
internal import LatchkeyWire

/// The session supabase-swift stored on the device, read from the bytes of its storage item:
/// what ``AuthAccount/importSupabaseSession(from:storageKey:)`` hands to
/// ``AuthAccount/importSession(accessToken:refreshToken:)``.
///
/// supabase-swift (the `Auth` module of `supabase/supabase-swift`, read at v2.55.1) stores its
/// session as JSON under one storage key, and has written three shapes over time; all three are
/// read:
///
/// - ``Format/current`` (v2.27.0 and later): the `Session` encoded by a default
///   `JSONEncoder` — camel-case keys (`accessToken`, `refreshToken`, `expiresAt`, `user`…),
///   dates as seconds since 2001-01-01.
/// - ``Format/snakeCase`` (v2.17.0 to v2.26.x): the same `Session` with snake-case keys
///   (`access_token`, `refresh_token`, `expires_at`…) and ISO 8601 date strings.
/// - ``Format/wrapped`` (before v2.17.0): `{"session": <snake-case Session>,
///   "expiration_date": "<ISO 8601>"}`.
///
/// Only the two tokens are needed, and the access token's expiry when the item records one:
/// the rest (the user, the provider tokens) is the server's to answer again.
///
/// Neither the description nor an error ever contains token text.
public struct SupabaseStoredSession: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Which of supabase-swift's storage shapes the item has.
    public enum Format: String, Sendable, Hashable {
        /// The `Session` with camel-case keys (supabase-swift v2.27.0 and later).
        case current
        /// The `Session` with snake-case keys (supabase-swift v2.17.0 to v2.26.x).
        case snakeCase
        /// A snake-case `Session` under `session`, next to `expiration_date` (before v2.17.0).
        case wrapped
    }

    /// Why the stored bytes are not a supabase-swift session. The reason names the shape that
    /// was expected, never a value that was found.
    public struct FormatError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, in words for logs and support.
        public let reason: String

        public var description: String { "SupabaseStoredSession.FormatError(\(reason))" }
    }

    /// The access token (a JWT) supabase-swift last held.
    public let accessToken: String
    /// The refresh token that goes with it.
    public let refreshToken: String
    /// When the access token expires, as the item records it (`expiresAt`/`expires_at`, Unix
    /// seconds); `nil` when it records none.
    public let expiresAt: Date?
    /// The shape the item had.
    public let format: Format

    /// Reads the bytes of supabase-swift's storage item.
    /// - Throws: ``FormatError`` when they are not JSON, not an object, or lack either token.
    public init(data: Data) throws {
        guard !data.isEmpty else { throw FormatError(reason: "the item is empty") }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            // The underlying error may quote the bytes: not passed on.
            throw FormatError(reason: "the item is not JSON")
        }
        guard let root = object as? [String: Any] else {
            throw FormatError(reason: "the item is not a JSON object")
        }
        let fields: [String: Any]
        if root["session"] != nil {
            guard let wrapped = root["session"] as? [String: Any] else {
                throw FormatError(reason: "the item's \"session\" is not a JSON object")
            }
            fields = wrapped
            format = .wrapped
        } else if root["accessToken"] != nil || root["refreshToken"] != nil {
            fields = root
            format = .current
        } else if root["access_token"] != nil || root["refresh_token"] != nil {
            fields = root
            format = .snakeCase
        } else {
            throw FormatError(reason: "the item has no access token (neither \"accessToken\" nor \"access_token\" nor \"session\")")
        }
        let camelCase = format == .current
        accessToken = try Self.token(camelCase ? "accessToken" : "access_token", in: fields)
        refreshToken = try Self.token(camelCase ? "refreshToken" : "refresh_token", in: fields)
        let expiry = (fields[camelCase ? "expiresAt" : "expires_at"] as? NSNumber)?.doubleValue
        expiresAt = expiry.map(Date.init(timeIntervalSince1970:))
    }

    private static func token(_ key: String, in fields: [String: Any]) throws -> String {
        guard let value = fields[key] else { throw FormatError(reason: "the item has no \"\(key)\"") }
        guard let token = value as? String else { throw FormatError(reason: "the item's \"\(key)\" is not a string") }
        guard !token.isEmpty else { throw FormatError(reason: "the item's \"\(key)\" is empty") }
        return token
    }

    public var description: String {
        var parts = ["format: \(format.rawValue)"]
        if let expiresAt { parts.append("expiresAt: \(WireDate.format(expiresAt))") }
        parts += ["accessToken: <redacted>", "refreshToken: <redacted>"]
        return "SupabaseStoredSession(\(parts.joined(separator: ", ")))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": "<redacted>", "refreshToken": "<redacted>", "expiresAt": expiresAt as Any, "format": format,
            ])
    }
}
