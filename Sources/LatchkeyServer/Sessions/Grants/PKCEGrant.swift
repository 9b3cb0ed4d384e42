import Foundation
import LatchkeyWire

/// `POST /token?grant_type=pkce`: trades the authorization code of a followed PKCE link, and
/// the verifier its challenge was made from, for a session.
///
/// A code is spent by its first use, right or wrong (so an intercepted code cannot be tried
/// twice), and is good for five minutes after the flow started, as in GoTrue.
struct PKCEGrant: TokenGrant {
    static let grantType = "pkce"
    static let metric = GrantMetric.signIn
    /// GoTrue's default flow-state lifetime.
    static let flowStateLifetime: TimeInterval = 300

    private let dependencies: FeatureDependencies

    init(_ dependencies: FeatureDependencies) {
        self.dependencies = dependencies
    }

    func session(for body: PKCEGrantBody, ipAddress: String) async throws -> SessionResponse {
        guard let code = body.auth_code, !code.isEmpty, let verifier = body.code_verifier, !verifier.isEmpty else {
            throw AuthError.validation("invalid request: both auth code and code verifier should be non-empty")
        }
        try await dependencies.limits.admitVerification(from: ipAddress)
        guard let flow = try await dependencies.store.consumeFlowState(authCodeHash: OpaqueTokens.hash(code)) else {
            throw AuthError.flowStateNotFound
        }
        // A magic link's flow counts from when its code was issued, every other from its start.
        let start =
            flow.authenticationMethod == EmailPurpose.magicLink.authenticationMethod ? (flow.authCodeIssuedAt ?? flow.createdAt) : flow.createdAt
        guard dependencies.clock.now().timeIntervalSince(start) <= Self.flowStateLifetime else { throw AuthError.flowStateExpired }
        guard PKCEChallenge.matches(challenge: flow.codeChallenge, method: flow.codeChallengeMethod, verifier: verifier) else {
            throw AuthError.badCodeVerifier
        }
        guard let user = try await dependencies.store.user(id: flow.userID) else { throw AuthError.flowStateNotFound }
        if user.isBanned(at: dependencies.clock.now()) { throw AuthError.userBanned }
        return try await dependencies.sessions.start(for: user, method: flow.authenticationMethod, ipAddress: ipAddress)
    }
}

extension AuthStore {
    /// Stores a PKCE flow for `userID` that has its authorization code already (a browser
    /// sign-in that lands on the app's `redirect_to` with `?code=`), and returns the code; only
    /// its hash is stored. `POST /token?grant_type=pkce` trades it, with the verifier, for a
    /// session started with `authenticationMethod`.
    func issueAuthorizationCode(
        userID: UUID, authenticationMethod: String, codeChallenge: String, codeChallengeMethod: FlowState.ChallengeMethod, at now: Date
    ) async throws -> String {
        let code = OpaqueTokens.random()
        try await saveFlowState(
            FlowState(
                userID: userID, authenticationMethod: authenticationMethod, codeChallenge: codeChallenge,
                codeChallengeMethod: codeChallengeMethod, authCodeHash: OpaqueTokens.hash(code), authCodeIssuedAt: now, createdAt: now))
        return code
    }
}
