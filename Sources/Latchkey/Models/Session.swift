import Foundation
internal import LatchkeyWire

/// A signed-in session: a short-lived access token, the refresh token that renews it, and the
/// user it belongs to (GoTrue's access-token response).
///
/// The tokens are secrets. `description`, `debugDescription`, `dump(_:)` and string
/// interpolation of a `Session` show `<redacted>` in their place, so a session can be logged or
/// printed by mistake without leaking them. Read ``accessToken`` explicitly to send it.
public struct Session: Sendable, Hashable {
    /// The JWT to send as `Authorization: Bearer …`. Secret.
    public let accessToken: String
    /// The single-use token that obtains the next session. Secret.
    public let refreshToken: String
    /// Always `bearer` on GoTrue.
    public let tokenType: String
    /// How long the access token was valid for when issued, in seconds.
    public let expiresIn: TimeInterval
    /// When the access token stops being valid.
    ///
    /// Latchkey anchors this on the device's clock when the session is received
    /// (`received + expires_in`), so a device clock that is off does not make a fresh token look
    /// expired or an expired one look fresh.
    public let expiresAt: Date
    /// The signed-in user.
    public let user: User

    public init(
        accessToken: String, refreshToken: String, tokenType: String = "bearer",
        expiresIn: TimeInterval, expiresAt: Date, user: User
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.expiresAt = expiresAt
        self.user = user
    }

    /// Seconds left before the access token expires at `date` (negative once expired).
    public func remainingLifetime(at date: Date) -> TimeInterval {
        expiresAt.timeIntervalSince(date)
    }

    /// Whether the access token has expired at `date`.
    public func isExpired(at date: Date) -> Bool {
        remainingLifetime(at: date) <= 0
    }

    /// The same session with its expiry anchored on `date` (the local receive time), rounded
    /// down to a whole second like GoTrue's `expires_at` (so it also survives storage exactly).
    func anchored(receivedAt date: Date) -> Session {
        guard expiresIn > 0 else { return self }
        let expiry = (date.timeIntervalSince1970 + expiresIn).rounded(.down)
        return Session(
            accessToken: accessToken, refreshToken: refreshToken, tokenType: tokenType,
            expiresIn: expiresIn, expiresAt: Date(timeIntervalSince1970: expiry), user: user)
    }

    /// The same session with a newer copy of the user.
    func replacingUser(_ user: User) -> Session {
        Session(
            accessToken: accessToken, refreshToken: refreshToken, tokenType: tokenType,
            expiresIn: expiresIn, expiresAt: expiresAt, user: user)
    }
}

extension Session: Codable {
    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case expiresAt = "expires_at"
        case user
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try container.decode(String.self, forKey: .accessToken)
        refreshToken = try container.decode(String.self, forKey: .refreshToken)
        tokenType = (try? container.decodeIfPresent(String.self, forKey: .tokenType)) ?? "bearer"
        let expiresIn = (try? container.decodeIfPresent(Double.self, forKey: .expiresIn)) ?? 0
        self.expiresIn = expiresIn
        if let expiresAt = try? container.decodeIfPresent(Double.self, forKey: .expiresAt) {
            self.expiresAt = Date(timeIntervalSince1970: expiresAt)
        } else {
            self.expiresAt = Date().addingTimeInterval(expiresIn)
        }
        user = try container.decode(User.self, forKey: .user)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encode(refreshToken, forKey: .refreshToken)
        try container.encode(tokenType, forKey: .tokenType)
        try container.encode(expiresIn, forKey: .expiresIn)
        try container.encode(expiresAt.timeIntervalSince1970, forKey: .expiresAt)
        try container.encode(user, forKey: .user)
    }
}

extension Session: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "Session(user: \(user.id), expiresAt: \(WireDate.format(expiresAt)), accessToken: <redacted>, refreshToken: <redacted>)"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": "<redacted>",
                "refreshToken": "<redacted>",
                "tokenType": tokenType,
                "expiresIn": expiresIn,
                "expiresAt": expiresAt,
                "user": user,
            ],
            displayStyle: .struct)
    }
}
