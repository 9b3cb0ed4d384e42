import Foundation

/// The one error type Latchkey's public API throws: what went wrong, in terms an app can act on
/// and words a person can read.
///
/// Show ``presentation`` (a title, a message, a suggested action); never show a raw server or OS
/// error string. ``code`` and ``status`` are for logs and support.
public struct AuthFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Category: Sendable, Hashable {
        /// Wrong email or password.
        case invalidCredentials
        /// The email address has not been confirmed yet.
        case emailNotConfirmed
        /// The account is disabled (banned).
        case accountDisabled
        /// Too many attempts; `retryAfter` is the server's hint in seconds, when it gave one.
        case rateLimited(retryAfter: TimeInterval?)
        /// No connection, a timeout, or the request was cancelled.
        case network
        /// The server failed (5xx) or answered something unreadable.
        case server
        /// The server refused the operation for this caller.
        case permission
        /// The session is over (revoked, expired, user deleted): sign in again.
        case sessionRevoked
        /// There is no signed-in session to use.
        case notSignedIn
        /// The secure credential store failed.
        case storage(StorageError)
        /// The input was rejected: weak password, malformed email, missing field.
        case invalidInput
        /// An account with this email already exists.
        case accountExists
        /// Anything else.
        case unknown
    }

    /// What kind of failure this is.
    public let category: Category
    /// The server's `error_code` (or the storage/transport kind), for logs and support.
    public let code: String?
    /// The HTTP status, when the server answered.
    public let status: Int?
    /// The server's or the provider's own words (a redirect's `error_description`), for logs
    /// and support; never shown to users.
    public let detail: String?

    public init(_ category: Category, code: String? = nil, status: Int? = nil, detail: String? = nil) {
        self.category = category
        self.code = code
        self.status = status
        self.detail = detail
    }

    /// Whether trying the same thing again later may succeed.
    public var isRetryable: Bool {
        switch category {
        case .network, .server, .rateLimited, .storage(.locked): true
        default: false
        }
    }

    public var description: String {
        var parts = ["category: \(category)"]
        if let code { parts.append("code: \(code)") }
        if let status { parts.append("status: \(status)") }
        if let detail { parts.append("detail: \(detail)") }
        return "AuthFailure(\(parts.joined(separator: ", ")))"
    }
}

extension AuthFailure: LocalizedError {
    public var errorDescription: String? { presentation.message }
    public var failureReason: String? { presentation.title }
    public var recoverySuggestion: String? { presentation.action.label }
}

extension AuthFailure {
    /// Maps any error from a backend, a store or the runtime onto the taxonomy.
    public init(_ error: any Error) {
        switch error {
        case let failure as AuthFailure:
            self = failure
        case let storage as StorageError:
            self.init(.storage(storage), code: "storage")
        case let backend as BackendError:
            self.init(backend: backend)
        case is CancellationError:
            self.init(.network, code: "cancelled")
        default:
            self.init(.unknown)
        }
    }

    /// Runs `operation` and throws whatever it throws as an ``AuthFailure``, the one error
    /// type the client's public methods throw. It runs in the caller's isolation.
    static func translating<T>(
        isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> T
    ) async throws(AuthFailure) -> T {
        do {
            return try await operation()
        } catch {
            throw AuthFailure(error)
        }
    }

    init(backend: BackendError) {
        switch backend {
        case .transport(let failure):
            let code: String =
                switch failure {
                case .offline: "offline"
                case .timedOut: "timed_out"
                case .cancelled: "cancelled"
                case .other(let code): "url_error_\(code)"
                case .lockUnavailable: "lock_unavailable"
                case .unknown: "transport_failed"
                }
            self.init(.network, code: code)
        case .invalidResponse:
            self.init(.server, code: "invalid_response")
        case .server(let status, let code, let message, let retryAfter):
            // GoTrue's sentence for a password found in a data breach (reason `pwned`), kept as
            // that reason's name: the server's own words are never carried.
            let pwned = code == "weak_password" && message?.contains("known to be weak and easy to guess") == true
            self.init(
                Self.category(status: status, code: code, message: message, retryAfter: retryAfter),
                code: code, status: status, detail: pwned ? "pwned" : nil)
        }
    }

    private static func category(
        status: Int, code: String?, message: String?, retryAfter: TimeInterval?
    ) -> Category {
        if let passkey = passkeyCategory(code: code) { return passkey }
        if let authorizedApps = authorizedAppCategory(code: code) { return authorizedApps }
        switch code {
        case "invalid_credentials": return .invalidCredentials
        case "email_not_confirmed", "phone_not_confirmed": return .emailNotConfirmed
        case "user_banned": return .accountDisabled
        case "over_request_rate_limit", "over_email_send_rate_limit", "over_sms_send_rate_limit":
            return .rateLimited(retryAfter: retryAfter)
        case "refresh_token_not_found", "refresh_token_already_used", "session_not_found",
            "session_expired", "user_not_found", "bad_jwt", "no_authorization":
            return .sessionRevoked
        case "weak_password", "validation_failed", "email_address_invalid", "bad_json",
            "email_address_not_authorized", "same_password", "otp_expired", "flow_state_not_found", "flow_state_expired",
            "bad_code_verifier", "reauthentication_not_valid", "captcha_failed":
            return .invalidInput
        case "identity_not_found", "single_identity_not_deletable", "bad_oauth_callback", "bad_oauth_state",
            "provider_email_needs_verification", "invalid_request":
            return .invalidInput
        case "identity_already_exists":
            return .accountExists
        case "manual_linking_disabled", "provider_disabled", "oauth_provider_not_supported", "access_denied", "unauthorized_client":
            return .permission
        case "mfa_verification_failed", "mfa_challenge_expired", "mfa_factor_not_found", "mfa_factor_name_conflict",
            "mfa_ip_address_mismatch", "mfa_verified_factor_exists":
            return .invalidInput
        case "too_many_enrolled_mfa_factors", "mfa_verification_rejected", "mfa_totp_enroll_not_enabled",
            "mfa_totp_verify_not_enabled", "mfa_phone_enroll_not_enabled", "mfa_phone_verify_not_enabled",
            "mfa_webauthn_enroll_not_enabled", "mfa_webauthn_verify_not_enabled":
            return .permission
        case "email_exists", "user_already_exists", "phone_exists", "conflict":
            return .accountExists
        case "not_admin", "signup_disabled", "email_provider_disabled", "insufficient_aal", "reauthentication_needed",
            "anonymous_provider_disabled", "otp_disabled", "phone_provider_disabled":
            return .permission
        case "invalid_grant":
            // Older GoTrue: {"error":"invalid_grant","error_description":"Invalid login credentials"}
            if let message, message.localizedCaseInsensitiveContains("not confirmed") { return .emailNotConfirmed }
            if let message, message.localizedCaseInsensitiveContains("refresh token") { return .sessionRevoked }
            return .invalidCredentials
        default:
            break
        }
        switch status {
        case 429: return .rateLimited(retryAfter: retryAfter)
        case 408: return .network
        case 500...: return .server
        case 401: return .sessionRevoked
        case 403: return .permission
        case 400, 422: return .invalidInput
        default: return .unknown
        }
    }
}
