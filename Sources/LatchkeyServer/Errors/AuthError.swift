import HTTPTypes
import LatchkeyWire

/// An error answered to the client in GoTrue's shape.
///
/// `error_code` values are GoTrue's, so unmodified Supabase clients map them as they would
/// against Supabase. Messages never contain a password, a token or a stack trace.
struct AuthError: Error, Sendable, Equatable {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    /// Reasons a password was refused (only for `weak_password`).
    var weakPasswordReasons: [String]?
    /// Seconds until a rate-limited client may try again (sent as `Retry-After`).
    var retryAfter: Int?
    /// Answered in OAuth's shape, `{"error": code, "error_description": message}`, as GoTrue
    /// answers its `OAuthError`s (the ID-token grant's).
    var isOAuthShaped = false
    /// A `WWW-Authenticate` challenge to send with a 401 (the OAuth token endpoint's, after a
    /// client's Basic credentials failed).
    var challenge: String?

    init(_ status: HTTPResponse.Status, _ code: String, _ message: String, weakPasswordReasons: [String]? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.weakPasswordReasons = weakPasswordReasons
        self.retryAfter = retryAfter
    }
}

extension AuthError {
    /// What a store failure means to the client: a taken address is 422 `email_exists` (a use
    /// case that means something else by it, such as sign-up's `user_already_exists`, catches it
    /// first), an unreachable database 503, a row the store cannot read 500.
    init(_ error: StoreError) {
        switch error {
        case .duplicateEmail: self = .emailExists
        case .duplicatePhone: self = .phoneExists
        case .duplicateUserID: self = .userIDExists
        case .duplicateCredential: self = .passkeyExists
        case .unavailable: self = .serviceUnavailable
        case .unreadableRow: self = .unexpected
        }
    }

    /// The answer a use case's failure gives the client, when it is one: an ``AuthError`` as it
    /// is, a taken address as 422 `email_exists`. `nil` for a failure of the server itself
    /// (an unreachable database, a bug), which pages and redirects do not turn into an answer.
    init?(answering error: any Error) {
        switch error {
        case let error as AuthError: self = error
        case StoreError.duplicateEmail: self.init(StoreError.duplicateEmail)
        case StoreError.duplicatePhone: self.init(StoreError.duplicatePhone)
        case StoreError.duplicateUserID: self.init(StoreError.duplicateUserID)
        case StoreError.duplicateCredential: self.init(StoreError.duplicateCredential)
        default: return nil
        }
    }

    /// Whether this is a 429: the client may try again after ``retryAfter`` seconds.
    var isRateLimit: Bool { status == .tooManyRequests }

    /// The OAuth `error` a redirect carries for this error, as GoTrue maps statuses (and
    /// `over_request_rate_limit` for a 429).
    var oauthErrorName: String {
        switch status.code {
        case 400: "invalid_request"
        case 401: "unauthorized_client"
        case 429: "over_request_rate_limit"
        case 500: "server_error"
        case 503: "temporarily_unavailable"
        default: "access_denied"
        }
    }
}

extension AuthError {
    /// GoTrue's `OAuthError`: 400 with `error` and `error_description`.
    static func oauth(_ error: String, _ description: String) -> AuthError {
        var answer = AuthError(.badRequest, error, description)
        answer.isOAuthShaped = true
        return answer
    }

    static let invalidCredentials = AuthError(.badRequest, "invalid_credentials", "Invalid login credentials")
    static let emailNotConfirmed = AuthError(.badRequest, "email_not_confirmed", "Email not confirmed")
    static let userBanned = AuthError(.badRequest, "user_banned", "User is banned")
    static let userBannedForbidden = AuthError(.forbidden, "user_banned", "User is banned")
    static let userAlreadyExists = AuthError(.unprocessableContent, "user_already_exists", "User already registered")
    static let userIDExists = AuthError(.unprocessableContent, "user_already_exists", "A user with this ID already exists")
    static let emailExists = AuthError(.unprocessableContent, "email_exists", "A user with this email address has already been registered")
    static let phoneExists = AuthError(.unprocessableContent, "phone_exists", "Phone number already registered by another user")
    static let refreshTokenNotFound = AuthError(.badRequest, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
    static let refreshTokenAlreadyUsed = AuthError(.badRequest, "refresh_token_already_used", "Invalid Refresh Token: Already Used")
    static let sessionNotFound = AuthError(.badRequest, "session_not_found", "Session from session_id claim in JWT does not exist")
    static let sessionExpired = AuthError(.badRequest, "session_expired", "Invalid Refresh Token: Session Expired")
    /// GoTrue's answer to a refresh of a session that went longer than the inactivity timeout
    /// without one.
    static let sessionExpiredInactivity = AuthError(.badRequest, "session_expired", "Invalid Refresh Token: Session Expired (Inactivity)")
    static let refreshUserBanned = AuthError(.badRequest, "user_banned", "Invalid Refresh Token: User Banned")
    /// A password holding a NUL character, which bcrypt would silently cut (GoTrue's Go bcrypt
    /// has no such limit, so it has no code of its own for it).
    static let passwordHasNUL = AuthError(.unprocessableContent, "validation_failed", "Password cannot contain a NUL character")
    /// Leaked-password protection fails closed and Pwned Passwords could not be asked (GoTrue's 500).
    static let pwnedCheckUnavailable = AuthError(
        .internalServerError, "unexpected_failure", "Unable to perform password strength check with HaveIBeenPwned.org.")
    static let refreshTokenInvalid = validation("Refresh token is not valid")
    static let sessionExpiredForbidden = AuthError(.forbidden, "session_expired", "Session expired")
    static let insufficientPermissions = AuthError(.forbidden, "insufficient_permissions", "You can only change your own profile")
    static let noAuthorization = AuthError(.unauthorized, "no_authorization", "This endpoint requires a valid Bearer token")
    static let missingSubClaim = AuthError(.forbidden, "bad_jwt", "invalid claim: missing sub claim")
    static let subClaimNotUUID = AuthError(.badRequest, "bad_jwt", "invalid claim: sub claim must be a UUID")
    static let sessionClaimNotUUID = AuthError(.forbidden, "bad_jwt", "invalid claim: session_id claim must be a UUID")
    static let sessionGone = AuthError(.forbidden, "session_not_found", "Session from session_id claim in JWT does not exist")
    static let userGone = AuthError(.forbidden, "user_not_found", "User from sub claim in JWT does not exist")
    static let notAdmin = AuthError(.forbidden, "not_admin", "User not allowed")
    static let userNotFound = AuthError(.notFound, "user_not_found", "User not found")
    static let otpExpired = AuthError(.forbidden, "otp_expired", "Email link is invalid or has expired")
    static let codeExpired = AuthError(.forbidden, "otp_expired", "Token has expired or is invalid")
    static let reauthenticationNeeded = AuthError(.badRequest, "reauthentication_needed", "Password update requires reauthentication")
    static let currentPasswordRequired = AuthError(
        .badRequest, "current_password_required", "Current password required when setting new password.")
    static let currentPasswordMismatch = AuthError(
        .badRequest, "current_password_mismatch", "Current password required when setting new password.")
    static let samePassword = AuthError(
        .unprocessableContent, "same_password", "New password should be different from the old password.")
    static let reauthenticationNotValid = AuthError(.unprocessableContent, "reauthentication_not_valid", "Nonce has expired or is invalid")
    static let anonymousProviderDisabled = AuthError(.unprocessableContent, "anonymous_provider_disabled", "Anonymous sign-ins are disabled")
    static let otpSignupsDisabled = AuthError(.unprocessableContent, "otp_disabled", "Signups not allowed for otp")
    static let anonymousPasswordWithoutEmail = AuthError(
        .unprocessableContent, "validation_failed", "Updating password of an anonymous user without an email or phone is not allowed")
    static let verifyEmailFirst = AuthError(.unprocessableContent, "email_not_confirmed", "Please verify your email first.")
    static let noUserWithEmail = AuthError(.notFound, "user_not_found", "User with this email not found")
    static let noFlowStateForLink = AuthError(
        .badRequest, "flow_state_not_found", "No associated flow state found. No valid flow state found for user.")
    static let signupDisabled = AuthError(.unprocessableContent, "signup_disabled", "Signups not allowed for this instance")
    static let notFound = AuthError(.notFound, "not_found", "The requested resource does not exist")
    /// GoTrue's answer to `grant_type=web3` while both Web3 providers are disabled.
    static let web3ProviderDisabled = AuthError(.unprocessableContent, "web3_provider_disabled", "Web3 provider is disabled")
    static let requestTooLarge = AuthError(.contentTooLarge, "request_too_large", "Request body is larger than 1 MB")
    static let badJSON = AuthError(.badRequest, "bad_json", "Could not parse request body as JSON")
    static let serviceUnavailable = AuthError(
        .serviceUnavailable, "service_unavailable", "The service is temporarily unavailable; try again shortly")
    static let unexpected = AuthError(
        .internalServerError, "unexpected_failure", "Unexpected failure, please check server logs for more information")

    /// 500 "Error sending … email": a mail that could not be handed to the mail server.
    static func mailNotSent(_ name: String) -> AuthError {
        AuthError(.internalServerError, "unexpected_failure", "Error sending \(name) email")
    }

    /// 400 `phone_provider_disabled`: Latchkey has no SMS provider, so every phone flow answers
    /// what GoTrue answers with the phone provider off.
    static func phoneProviderDisabled(_ message: String = "Unsupported phone provider") -> AuthError {
        AuthError(.badRequest, "phone_provider_disabled", message)
    }

    /// 403 `bad_jwt`: a bearer token that is malformed, signed with another key or algorithm,
    /// expired or not yet valid. `reason` says which, in the words of GoTrue's JWT parser; it
    /// never contains the token.
    static func invalidJWT(_ reason: String) -> AuthError {
        AuthError(.forbidden, "bad_jwt", "invalid JWT: unable to parse or verify signature, \(reason)")
    }

    /// 400 `validation_failed` with a message saying which input was wrong.
    static func validation(_ message: String) -> AuthError {
        AuthError(.badRequest, "validation_failed", message)
    }

    /// 429 `over_request_rate_limit`, telling the client when it may retry.
    static func rateLimited(retryAfter: Int) -> AuthError {
        AuthError(.tooManyRequests, "over_request_rate_limit", "Request rate limit reached", retryAfter: max(1, retryAfter))
    }

    /// 429 `over_email_send_rate_limit`.
    static func emailRateLimited(retryAfter: Int) -> AuthError {
        AuthError(
            .tooManyRequests, "over_email_send_rate_limit",
            "For security purposes, you can only request this after \(max(1, retryAfter)) seconds.", retryAfter: max(1, retryAfter))
    }

    /// 422 `weak_password` with GoTrue's `weak_password.reasons`.
    static func weakPassword(_ weakness: SessionResponse.WeakPasswordNotice) -> AuthError {
        AuthError(.unprocessableContent, "weak_password", weakness.message ?? "Password is too weak", weakPasswordReasons: weakness.reasons)
    }
}
