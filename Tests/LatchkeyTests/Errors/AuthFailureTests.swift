import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

@Suite("Error taxonomy")
struct AuthFailureTests {
    static func server(
        _ status: Int, _ code: String?, message: String? = "raw server text: stack trace", retryAfter: TimeInterval? = nil
    ) -> BackendError {
        .server(status: status, code: code, message: message, retryAfter: retryAfter)
    }

    @Test("Server error codes map to categories")
    func categories() {
        let cases: [(BackendError, AuthFailure.Category)] = [
            (Self.server(400, "invalid_credentials"), .invalidCredentials),
            (Self.server(400, "email_not_confirmed"), .emailNotConfirmed),
            (Self.server(400, "user_banned"), .accountDisabled),
            (Self.server(429, "over_request_rate_limit", retryAfter: 42), .rateLimited(retryAfter: 42)),
            (Self.server(429, nil), .rateLimited(retryAfter: nil)),
            (Self.server(503, "service_unavailable"), .server),
            (Self.server(500, nil), .server),
            (Self.server(403, "not_admin"), .permission),
            (Self.server(400, "refresh_token_already_used"), .sessionRevoked),
            (Self.server(403, "session_not_found"), .sessionRevoked),
            (Self.server(422, "weak_password"), .invalidInput),
            (Self.server(422, "user_already_exists"), .accountExists),
            (Self.server(400, "invalid_grant", message: "Invalid login credentials"), .invalidCredentials),
            (Self.server(400, "invalid_grant", message: "Email not confirmed"), .emailNotConfirmed),
            (.transport(.offline), .network),
            (.transport(.timedOut), .network),
            (.transport(.cancelled), .network),
            (.invalidResponse(reason: "x"), .server),
            (Self.server(418, "teapot"), .unknown),
        ]
        for (error, category) in cases {
            #expect(AuthFailure(error).category == category, "\(error)")
        }
        #expect(AuthFailure(StorageError.locked).category == .storage(.locked))
        #expect(AuthFailure(CancellationError()).category == .network)
        struct Weird: Error {}
        #expect(AuthFailure(Weird()).category == .unknown)
    }

    @Test(
        "Transport failures carry named codes, never numbers",
        arguments: [
            (BackendError.TransportFailure.offline, "offline"), (.timedOut, "timed_out"), (.cancelled, "cancelled"),
            (.lockUnavailable, "lock_unavailable"), (.unknown, "transport_failed"), (.other(code: -1_001), "url_error_-1001"),
        ])
    func transportCodes(failure: BackendError.TransportFailure, code: String) {
        let mapped = AuthFailure(BackendError.transport(failure))
        #expect(mapped == AuthFailure(.network, code: code))
        #expect(mapped.isRetryable, "the session is kept and retried")
    }

    @Test("Errors that are not backend errors become named transport failures")
    func backendErrorFromAnyError() {
        struct Weird: Error {}
        #expect(BackendError(Weird()) == .transport(.unknown))
        #expect(BackendError(CancellationError()) == .transport(.cancelled))
        #expect(BackendError(BackendError.transport(.offline)) == .transport(.offline))
    }

    @Test("A cross-process lock that cannot be taken is worded as such, not as a connection problem")
    func lockUnavailablePresentation() {
        let presentation = AuthFailure(BackendError.transport(.lockUnavailable)).presentation
        #expect(presentation.title == "Sign-In Unavailable")
        #expect(presentation.message == "Your saved sign-in can't be renewed right now. Please try again.")
        #expect(presentation.action == .retry)
        #expect(AuthFailure(BackendError.transport(.unknown)).presentation.title == "Connection Issue")
    }

    @Test("Presentations use the seeds' wording and suggest the right action")
    func presentations() {
        let wrongPassword = AuthFailure(Self.server(400, "invalid_credentials")).presentation
        #expect(wrongPassword.message == "Incorrect email or password. Try 'Forgot Password?'")
        #expect(wrongPassword.title == "Incorrect Password")
        #expect(wrongPassword.action == .resetPassword)

        let offline = AuthFailure(BackendError.transport(.offline)).presentation
        #expect(offline.message == "Check your connection and retry")
        #expect(offline.title == "Connection Issue")
        #expect(offline.action == .retry)

        let limited = AuthFailure(Self.server(429, "over_request_rate_limit", retryAfter: 30)).presentation
        #expect(limited.message == "Too many login attempts. Please wait a few minutes and try again.")
        #expect(limited.action == .waitAndRetry(after: 30))

        let disabled = AuthFailure(Self.server(400, "user_banned")).presentation
        #expect(disabled.message == "Account disabled. Contact support")
        #expect(disabled.action == .contactSupport)

        #expect(AuthFailure(Self.server(400, "email_not_confirmed")).presentation.action == .resendVerification)
        #expect(AuthFailure(Self.server(503, nil)).presentation.message == "Service temporarily unavailable. Please try again later.")
    }

    @Test("A breached password and a refused CAPTCHA get words of their own")
    func breachedPasswordAndCaptcha() {
        // GoTrue's message for reason `pwned`, alone and after another reason's.
        for message in [
            "Password is known to be weak and easy to guess, please choose a different one.",
            "Password should be at least 8 characters. Password is known to be weak and easy to guess, please choose a different one.",
        ] {
            let pwned = AuthFailure(Self.server(422, "weak_password", message: message)).presentation
            #expect(pwned.title == "Choose Another Password" && pwned.action == .editInput)
            #expect(pwned.message.contains("data breach"))
        }
        let short = AuthFailure(Self.server(422, "weak_password", message: "Password should be at least 8 characters.")).presentation
        #expect(short.title == "Check Your Details" && short.message.contains("too weak"))
        let captcha = AuthFailure(Self.server(400, "captcha_failed", message: "captcha protection: request disallowed (already-seen-response)"))
        #expect(captcha.category == .invalidInput)
        #expect(captcha.presentation.title == "Verification Needed" && captcha.presentation.action == .retry)
    }

    @Test("Nothing a person or a log sees carries the raw server message")
    func noRawStrings() {
        let raw = "raw server text: stack trace"
        let all: [AuthFailure.Category] = [
            .invalidCredentials, .emailNotConfirmed, .accountDisabled, .rateLimited(retryAfter: 1), .network,
            .server, .permission, .sessionRevoked, .notSignedIn, .storage(.locked), .storage(.corrupted(reason: "r")),
            .invalidInput, .accountExists, .unknown,
        ]
        for category in all {
            let failure = AuthFailure(category)
            #expect(!failure.presentation.title.isEmpty)
            #expect(!failure.presentation.message.isEmpty)
        }
        let failure = AuthFailure(Self.server(500, "unexpected_failure"))
        for text in [failure.description, failure.localizedDescription, failure.presentation.message, "\(failure)"] {
            #expect(!text.contains(raw))
        }
        #expect(!"\(Self.server(500, "x"))".contains(raw), "BackendError's description omits the server text too")
    }

    @Test("Only definitive server answers end a session")
    func definitive() {
        #expect(Self.server(400, "refresh_token_not_found").definitiveSignOutReason == .sessionRevoked(code: "refresh_token_not_found"))
        #expect(Self.server(400, "refresh_token_already_used").definitiveSignOutReason == .sessionRevoked(code: "refresh_token_already_used"))
        #expect(Self.server(403, "session_not_found").definitiveSignOutReason == .sessionRevoked(code: "session_not_found"))
        #expect(Self.server(400, "session_expired").definitiveSignOutReason == .sessionRevoked(code: "session_expired"))
        #expect(Self.server(400, "user_banned").definitiveSignOutReason == .userBanned)
        #expect(Self.server(404, "user_not_found").definitiveSignOutReason == .userDeleted)
        #expect(
            Self.server(400, "invalid_grant", message: "Invalid Refresh Token: Refresh Token Not Found")
                .definitiveSignOutReason == .sessionRevoked(code: "refresh_token_not_found"))
        for transient: BackendError in [
            .transport(.offline), .transport(.timedOut), .transport(.cancelled), Self.server(500, "refresh_token_not_found"),
            Self.server(503, nil), Self.server(429, "over_request_rate_limit"), Self.server(401, "bad_jwt"),
            Self.server(400, "validation_failed"), .invalidResponse(reason: "html"),
        ] {
            #expect(transient.definitiveSignOutReason == nil, "\(transient)")
        }
        #expect(BackendError.transport(.cancelled).isTransient)
        #expect(Self.server(502, nil).isTransient)
        #expect(Self.server(429, nil).isTransient)
        #expect(!Self.server(400, "refresh_token_not_found").isTransient)
    }
}
