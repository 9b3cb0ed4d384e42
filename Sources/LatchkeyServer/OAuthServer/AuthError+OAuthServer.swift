import HTTPTypes

/// The OAuth server's answers, with GoTrue's codes and messages.
extension AuthError {
    /// GoTrue's answer on the OAuth server's routes while it is disabled.
    static let oauthServerDisabled = AuthError(.notFound, "feature_disabled", "OAuth server is disabled")
    static let oauthClientNotFound = AuthError(.notFound, "oauth_client_not_found", "OAuth client not found")
    static let oauthClientIDInvalid = validation("invalid client_id format")
    static let dynamicRegistrationDisabled = AuthError(
        .forbidden, "oauth_dynamic_client_registration_disabled", "Dynamic client registration is not enabled")

    // MARK: The authorization request

    /// `/oauth/authorize` with a `client_id` that is not a UUID (400, before anything is trusted).
    static let authorizeClientIDMalformed = AuthError(.badRequest, "oauth_client_not_found", "invalid client_id format")
    /// `/oauth/authorize` naming no client, or a deleted one.
    static let authorizeClientUnknown = AuthError(.badRequest, "oauth_client_not_found", "invalid client_id")
    /// `/oauth/authorize` with a `redirect_uri` the client did not register, character for character.
    static let authorizeRedirectUnregistered = validation("invalid redirect_uri")
    static let authorizationNotFound = AuthError(.notFound, "oauth_authorization_not_found", "authorization not found")
    static let authorizationNotPending = validation("authorization request cannot be processed")
    static let authorizationNoLongerPending = validation("authorization request is no longer pending")
    static let consentActionInvalid = validation("action must be 'approve' or 'deny'")
    /// The consent routes called from a page whose `Origin` is not the site URL or an allowed URL.
    static let consentOriginRefused = validation("unauthorized request origin")

    // MARK: The token endpoint

    /// Client authentication at `POST /oauth/token` failed (GoTrue's 400 `invalid_credentials`).
    static func oauthClientCredentials(_ reason: String) -> AuthError {
        AuthError(.badRequest, "invalid_credentials", reason)
    }

    static let authorizationCodeInvalid = oauth("invalid_grant", "Invalid authorization code")
    static let authorizationCodeExpired = oauth("invalid_grant", "Authorization code has expired")
    static let authorizationCodeOtherClient = oauth("invalid_grant", "Authorization code was not issued for this client")
    static let authorizationCodeOtherRedirect = oauth("invalid_grant", "Invalid redirect_uri")
    static let authorizationCodeOtherResource = oauth(
        "invalid_grant", "Authorization code resource does not match the resource parameter")
    static let codeVerifierMissing = oauth(
        "invalid_grant", "PKCE verification failed: code_verifier is required when PKCE challenge is present")
    static let codeVerifierMismatch = oauth(
        "invalid_grant", "PKCE verification failed: code challenge does not match previously saved code verifier")
    static let authorizationUserGone = oauth("invalid_grant", "User not found for authorization code")
    static let authorizationUserBanned = oauth("access_denied", "User is banned")
    /// An ID token was asked for (`openid`) but tokens are signed with the HS256 secret, which
    /// another app cannot verify.
    static let idTokenNeedsAsymmetricKey = AuthError(
        .internalServerError, "unexpected_failure", "Error generating ID token: the server signs with HS256; configure ES256 or RS256 JWT keys")

    // MARK: Refreshing a client's session

    /// `POST /token` with the refresh token of a session granted to an OAuth client.
    static let oauthClientRequiredForSession = oauth("invalid_client", "Client authentication required for OAuth session")
    /// `POST /oauth/token` with the refresh token of an ordinary session.
    static let oauthClientNotAllowedForSession = oauth("invalid_client", "Client authentication not allowed for non-OAuth session")
    /// `POST /oauth/token` by one client with the refresh token of a session granted to another.
    static let oauthClientMismatch = oauth("invalid_client", "Client does not match the session's OAuth client")

    // MARK: The user's grants

    /// A token issued to an OAuth client, on a route only the user's own sign-in may use.
    static let oauthClientTokenRefused = AuthError(
        .forbidden, "insufficient_permissions", "This token was issued to another app: only the user's own sign-in may do this")

    static let grantClientIDRequired = validation("client_id query parameter is required")
    static let grantNotFound = AuthError(.notFound, "oauth_consent_not_found", "No active grant found for this client")
}

extension AuthError {
    /// This error as the token endpoint answers it: always in OAuth's shape (RFC 6749 §5.2),
    /// which OAuth client libraries read, where GoTrue answers some in its own. A failed client
    /// authentication is `invalid_client` (401 with a `WWW-Authenticate` challenge when the
    /// client sent Basic credentials); a refresh token that is spent, unknown, or of an ended
    /// session is `invalid_grant`, with GoTrue's message as the description. Rate limits and
    /// server failures keep their status.
    func tokenEndpointError(basicAuthentication: Bool) -> AuthError {
        if isOAuthShaped || isRateLimit || status.code >= 500 { return self }
        var answer: AuthError
        if code == "invalid_credentials" {
            answer = .oauth("invalid_client", message)
            if basicAuthentication {
                answer.status = .unauthorized
                answer.challenge = #"Basic realm="oauth""#
            }
        } else if code == "validation_failed" || code == "bad_json" {
            answer = .oauth("invalid_request", message)
        } else {
            answer = .oauth("invalid_grant", message)
        }
        return answer
    }
}
