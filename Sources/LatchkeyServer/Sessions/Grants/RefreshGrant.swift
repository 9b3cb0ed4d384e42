import Foundation
import LatchkeyWire
import Logging

/// `POST /token?grant_type=refresh_token`: spends a refresh token under the rules of
/// ``RefreshRotation``.
struct RefreshGrant: TokenGrant {
    static let grantType = "refresh_token"
    static let metric = GrantMetric.refresh

    private let store: any AuthStore
    private let clock: any ServerClock
    private let tokens: OpaqueTokens
    private let limits: RateLimits
    private let sessions: SessionIssuer
    /// How long a spent token still yields the active one.
    private let reuseInterval: TimeInterval
    /// How long a session may go without a refresh.
    private let inactivityTimeout: TimeInterval?
    private let logger: Logger

    init(
        store: any AuthStore, clock: any ServerClock, tokens: OpaqueTokens, limits: RateLimits, sessions: SessionIssuer,
        reuseInterval: TimeInterval, inactivityTimeout: TimeInterval? = nil, logger: Logger
    ) {
        self.inactivityTimeout = inactivityTimeout
        self.store = store
        self.clock = clock
        self.tokens = tokens
        self.limits = limits
        self.sessions = sessions
        self.reuseInterval = reuseInterval
        self.logger = logger
    }

    init(_ dependencies: FeatureDependencies) {
        self.init(
            store: dependencies.store, clock: dependencies.clock, tokens: dependencies.tokens, limits: dependencies.limits,
            sessions: dependencies.sessions, reuseInterval: dependencies.configuration.refreshReuseInterval,
            inactivityTimeout: dependencies.configuration.sessionInactivityTimeout, logger: dependencies.logger)
    }

    func session(for body: RefreshGrantBody, ipAddress: String) async throws -> SessionResponse {
        // GoTrue's first check: no token can be shorter than 12 characters (its oldest tokens
        // are 12 lowercase letters or digits).
        guard let token = body.refresh_token,
            token.utf8.count > 12
                || (token.utf8.count == 12 && token.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }))
        else { throw AuthError.refreshTokenInvalid }
        return try await session(spending: token, clientID: nil, ipAddress: ipAddress)
    }

    /// Spends `token` for the OAuth client `clientID` (authenticated at `POST /oauth/token`), or
    /// for no client (`POST /token`): a session granted to a client is refreshed by it alone.
    func session(spending token: String, clientID: UUID?, ipAddress: String) async throws -> SessionResponse {
        let hash = OpaqueTokens.hash(token)
        let request = RefreshRotation.Request(
            presentedToken: token, now: clock.now(), reuseInterval: reuseInterval, ipAddress: ipAddress,
            inactivityTimeout: inactivityTimeout,
            successor: { [tokens] in tokens.successor(of: $0) }, clientID: clientID)
        // The store counts the refresh against its session's limit in the rotation's transaction.
        // The answer lists the user's factors: the store hands them over when it read them in
        // the same transaction.
        let (outcome, factors) = try await store.rotateRefreshToken(hash: hash, admission: limits.refreshAdmission()) { state in
            let decided = RefreshRotation.plan(state, request)
            return RefreshTokenPlan(changes: decided.changes, result: (decided.result, state.factors))
        }
        switch outcome {
        case .issued(let session, let user, let refreshToken):
            return try await sessions.response(
                user: user, session: session, refreshToken: refreshToken, authenticationMethod: "token_refresh", factors: factors)
        case .refused(let error):
            if error == .refreshTokenAlreadyUsed {
                logger.warning("refresh token reuse detected: session revoked", metadata: ["ip": "\(ipAddress)"])
            }
            throw error
        }
    }
}
