import Foundation

/// How strongly a session proves who the user is (the access token's `aal` claim).
public enum AssuranceLevel: String, Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// One factor: a password, an emailed code or link, an OAuth provider.
    case aal1
    /// A second factor was verified in this session (an authenticator-app code).
    case aal2
    /// Hardware-backed proof, on servers that issue it.
    case aal3

    public var description: String { rawValue }

    public static func < (lhs: AssuranceLevel, rhs: AssuranceLevel) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .aal1: 1
        case .aal2: 2
        case .aal3: 3
        }
    }
}

/// How a session was authenticated, read from its access token: the assurance level (`aal`)
/// and the methods used (`amr`), newest first as the server lists them.
///
/// Read from the token without checking its signature: it describes the session to the app
/// (which screen to show); the server enforces the level on every request.
public struct SessionAssurance: Sendable, Hashable {
    /// One way the user proved who they are in this session, and when.
    public struct Method: Sendable, Hashable {
        /// `password`, `otp`, `totp`, `oauth`, `magiclink`, `anonymous`…
        public let method: String
        /// When it was used.
        public let timestamp: Date

        public init(method: String, timestamp: Date) {
            self.method = method
            self.timestamp = timestamp
        }
    }

    /// The level; ``AssuranceLevel/aal1`` when the token carries none (or one Latchkey does not
    /// know), as GoTrue itself reads it.
    public let level: AssuranceLevel
    /// The methods, as listed in the token.
    public let methods: [Method]

    public init(level: AssuranceLevel, methods: [Method] = []) {
        self.level = level
        self.methods = methods
    }

    /// Reads `aal` and `amr` from a JWT's payload.
    init(accessToken: String) {
        guard let claims = JWTPayload.claims(of: accessToken) else {
            self.init(level: .aal1)
            return
        }
        let level = (claims["aal"] as? String).flatMap(AssuranceLevel.init(rawValue:)) ?? .aal1
        let entries = claims["amr"] as? [Any] ?? []
        let methods = entries.compactMap { entry -> Method? in
            guard let object = entry as? [String: Any], let method = object["method"] as? String else { return nil }
            let seconds = (object["timestamp"] as? NSNumber)?.doubleValue ?? 0
            return Method(method: method, timestamp: Date(timeIntervalSince1970: seconds))
        }
        self.init(level: level, methods: methods)
    }

    /// The method names, e.g. `["totp", "password"]`.
    public var methodNames: [String] { methods.map(\.method) }
}

extension Session {
    /// How this session was authenticated: its assurance level and methods, from the access
    /// token.
    public var assurance: SessionAssurance { SessionAssurance(accessToken: accessToken) }

    /// Whether the user must still enter a code from an authenticator app: the account has a
    /// verified factor but this session is at ``AssuranceLevel/aal1``. Until then the server
    /// refuses what needs `aal2` (and the app should ask for the code).
    public var requiresSecondFactor: Bool {
        // The factors first: most accounts have none, and then the token is not read at all.
        user.factors.contains { $0.status == .verified } && assurance.level < .aal2
    }
}
