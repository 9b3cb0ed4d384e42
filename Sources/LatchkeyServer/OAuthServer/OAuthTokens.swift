import Foundation
import LatchkeyWire
import Logging

/// `POST /oauth/token`: an authenticated client redeems an authorization code, or refreshes a
/// session it was granted, as GoTrue's `OAuthToken`.
///
/// A code is redeemed once, by the client it was issued to, with the PKCE verifier of its
/// challenge and (when given) the redirect URI it was issued for. Presenting a code again
/// after it was redeemed is treated as a leak (OAuth 2.1 §4.1.3): the session it started is
/// ended at once, whoever presents it. A session granted to a client is refreshed by that
/// client alone, under the same rotation rules as `/token`.
struct OAuthTokens: Sendable {
    let store: any AuthStore
    let clock: any ServerClock
    let sessions: SessionIssuer
    let refresh: RefreshGrant
    let signer: TokenSigner
    let logger: Logger

    /// The audit method and the `amr` of a session started by a code.
    static let authenticationMethod = "oauth_provider/authorization_code"

    /// Answers the token request `fields` of `client`.
    func token(_ fields: [String: String], client: OAuthClientRecord, ipAddress: String) async throws -> OAuthTokenResponse {
        guard let grantType = fields["grant_type"], !grantType.isEmpty else { throw AuthError.oauth("invalid_request", "grant_type is required") }
        guard OAuthClientRecord.grantTypes.contains(grantType) else {
            throw AuthError.oauth("unsupported_grant_type", "Unsupported grant type: \(grantType)")
        }
        guard client.grantTypes.contains(grantType) else {
            throw AuthError.oauth("unsupported_grant_type", "Client is not allowed to use grant type: \(grantType)")
        }
        if grantType == "refresh_token" {
            guard let token = fields["refresh_token"], !token.isEmpty else {
                throw AuthError.oauth("invalid_request", "refresh_token is required for refresh_token grant")
            }
            let session = try await refresh.session(spending: token, clientID: client.id, ipAddress: ipAddress)
            return OAuthTokenResponse(
                access_token: session.access_token, expires_in: session.expires_in ?? 0, refresh_token: session.refresh_token)
        }
        guard let code = fields["code"], !code.isEmpty else {
            throw AuthError.oauth("invalid_request", "code is required for authorization_code grant")
        }
        return try await redeem(
            code, client: client, verifier: fields["code_verifier"], redirectURI: fields["redirect_uri"], resource: fields["resource"],
            ipAddress: ipAddress)
    }

    /// Redeems `code`: a session for the user who approved it, granted to `client`.
    private func redeem(
        _ code: String, client: OAuthClientRecord, verifier: String?, redirectURI: String?, resource: String?, ipAddress: String
    ) async throws -> OAuthTokenResponse {
        let hash = OpaqueTokens.hash(code)
        guard let authorization = try await store.oauthAuthorization(codeHash: hash) else { throw AuthError.authorizationCodeInvalid }
        switch authorization.status {
        case .approved: break
        case .redeemed, .replayed:
            try await endReplayedSession(of: authorization)
            throw AuthError.authorizationCodeInvalid
        case .pending, .denied, .expired:
            throw AuthError.authorizationCodeInvalid
        }
        let now = clock.now()
        guard now <= authorization.expiresAt else { throw AuthError.authorizationCodeExpired }
        guard authorization.clientID == client.id else { throw AuthError.authorizationCodeOtherClient }
        if let resource, !resource.isEmpty, resource != authorization.resource { throw AuthError.authorizationCodeOtherResource }
        if let redirectURI, !redirectURI.isEmpty, redirectURI != authorization.redirectURI { throw AuthError.authorizationCodeOtherRedirect }
        guard let verifier, !verifier.isEmpty else { throw AuthError.codeVerifierMissing }
        guard PKCEChallenge.matches(challenge: authorization.codeChallenge, method: .s256, verifier: verifier) else {
            throw AuthError.codeVerifierMismatch
        }
        guard let userID = authorization.userID, let user = try await store.user(id: userID) else { throw AuthError.authorizationUserGone }
        if user.isBanned(at: now) { throw AuthError.authorizationUserBanned }
        let wantsIDToken = OAuthScope.contains(authorization.scope, "openid")
        if wantsIDToken, !signer.signsAsymmetrically { throw AuthError.idTokenNeedsAsymmetricKey }

        var prepared = sessions.prepare(for: user, method: Self.authenticationMethod, ipAddress: ipAddress, provider: "oauth_provider")
        prepared.session.oauthClientID = client.id
        prepared.session.scopes = authorization.scope
        prepared.audit.traits["client_id"] = .string(client.id.lowercasedString)
        prepared = try await sessions.presign(prepared)

        var redeemed = authorization
        redeemed.status = .redeemed
        redeemed.sessionID = prepared.session.id
        guard try await store.updateOAuthAuthorization(redeemed, from: authorization) else {
            // Another request redeemed it between the read and now: the same code twice.
            if let current = try await store.oauthAuthorization(codeHash: hash) { try await endReplayedSession(of: current) }
            throw AuthError.authorizationCodeInvalid
        }
        try await store.createSession(
            prepared.session, refreshTokenHash: OpaqueTokens.hash(prepared.refreshToken), updatingUser: prepared.user, audit: prepared.audit)
        // A replay that came while the session was being stored could not end it: end it now.
        if let current = try await store.oauthAuthorization(codeHash: hash), current.status == .replayed {
            try await store.endSessions(userID: user.id, except: nil, only: prepared.session.id, audit: nil)
            throw AuthError.authorizationCodeInvalid
        }
        let session = try await sessions.started(prepared)
        var idToken: String?
        if wantsIDToken {
            idToken = try await signer.sign(OAuthIDTokenClaims(user: prepared.user, authorization: authorization, issuer: signer.issuer, now: now))
        }
        return OAuthTokenResponse(
            access_token: session.access_token, expires_in: session.expires_in ?? 0, refresh_token: session.refresh_token,
            id_token: idToken)
    }

    /// Marks `authorization` replayed and ends the session its code started.
    private func endReplayedSession(of authorization: OAuthAuthorizationRecord) async throws {
        if authorization.status == .redeemed {
            var replayed = authorization
            replayed.status = .replayed
            _ = try await store.updateOAuthAuthorization(replayed, from: authorization)
        }
        guard let sessionID = authorization.sessionID, let userID = authorization.userID else { return }
        let ended = try await store.endSessions(userID: userID, except: nil, only: sessionID, audit: nil)
        if ended > 0 {
            logger.warning(
                "authorization code presented again: the session it started is ended",
                metadata: ["client_id": "\(authorization.clientID)", "session_id": "\(sessionID)"])
        }
    }
}
