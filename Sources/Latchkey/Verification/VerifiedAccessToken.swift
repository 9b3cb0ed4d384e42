import Foundation
// Public: the claims are JSONValue (Exports.swift). No wire body is part of the API.
public import LatchkeyWire

/// The claims of an access token whose signature and times ``AccessTokenVerifier`` checked:
/// GoTrue's claims, read as the server wrote them.
public struct VerifiedAccessToken: Sendable, Hashable {
    /// One way the user proved who they are in this session (an `amr` entry).
    public struct AuthenticationMethod: Sendable, Hashable, Decodable {
        /// `password`, `otp`, `magiclink`, `totp`, `anonymous`, …
        public var method: String
        /// When, if the server said.
        public var timestamp: Date?

        enum CodingKeys: String, CodingKey { case method, timestamp }

        public init(method: String, timestamp: Date?) {
            self.method = method
            self.timestamp = timestamp
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            method = try container.decode(String.self, forKey: .method)
            timestamp = try container.decodeIfPresent(Double.self, forKey: .timestamp).map(Date.init(timeIntervalSince1970:))
        }
    }

    /// The user's id (`sub`); `nil` for a token that names no user.
    public var subject: String?
    /// The database role (`role`): `authenticated`, `anon`, `service_role`, …
    public var role: String?
    /// The session the token belongs to (`session_id`).
    public var sessionID: String?
    public var email: String?
    public var phone: String?
    /// The audiences (`aud`), usually `["authenticated"]`.
    public var audience: [String]
    /// The issuer (`iss`), the server's URL and `/auth/v1`.
    public var issuer: String?
    /// When the token expires (`exp`).
    public var expiresAt: Date
    /// When it was issued (`iat`).
    public var issuedAt: Date?
    /// The authenticator assurance level (`aal`): `aal1`, or `aal2` after a second factor.
    public var assuranceLevel: String?
    /// How the user signed in (`amr`), oldest first.
    public var authenticationMethods: [AuthenticationMethod]
    /// Whether the user signed in anonymously (`is_anonymous`).
    public var isAnonymous: Bool
    public var appMetadata: [String: JSONValue]
    public var userMetadata: [String: JSONValue]
    /// Every claim of the payload, including those above.
    public var claims: [String: JSONValue]
    /// The signing key's id (`kid`) and algorithm (`alg`) from the header.
    public var keyID: String
    public var algorithm: String
}

extension VerifiedAccessToken {
    /// The claims in `payload` (the token's decoded JSON payload), or `nil` when it is not a JSON
    /// object with a numeric `exp`.
    init?(payload: Data, keyID: String, algorithm: String) {
        guard let claims = try? JSONDecoder().decode([String: JSONValue].self, from: payload) else { return nil }
        guard case .number(let exp)? = claims["exp"] else { return nil }
        func string(_ name: String) -> String? {
            if case .string(let value)? = claims[name] { return value }
            return nil
        }
        func object(_ name: String) -> [String: JSONValue] {
            if case .object(let value)? = claims[name] { return value }
            return [:]
        }
        subject = string("sub")
        role = string("role")
        sessionID = string("session_id")
        email = string("email")
        phone = string("phone")
        switch claims["aud"] {
        case .string(let value)?: audience = [value]
        case .array(let values)?: audience = values.compactMap { if case .string(let value) = $0 { value } else { nil } }
        default: audience = []
        }
        issuer = string("iss")
        expiresAt = Date(timeIntervalSince1970: exp)
        if case .number(let iat)? = claims["iat"] { issuedAt = Date(timeIntervalSince1970: iat) } else { issuedAt = nil }
        assuranceLevel = string("aal")
        if case .array(let entries)? = claims["amr"] {
            authenticationMethods = entries.compactMap { entry in
                guard let data = try? JSONEncoder().encode(entry) else { return nil }
                return try? JSONDecoder().decode(AuthenticationMethod.self, from: data)
            }
        } else {
            authenticationMethods = []
        }
        if case .bool(let anonymous)? = claims["is_anonymous"] { isAnonymous = anonymous } else { isAnonymous = false }
        appMetadata = object("app_metadata")
        userMetadata = object("user_metadata")
        self.claims = claims
        self.keyID = keyID
        self.algorithm = algorithm
    }
}
