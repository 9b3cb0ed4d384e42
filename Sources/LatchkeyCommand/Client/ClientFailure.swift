import Foundation
import Latchkey

/// A client command's failure in plain words, with its exit code. Printed on stderr; never a
/// raw error string or a stack trace.
struct ClientFailure: Error, Sendable, Equatable {
    /// The exit code.
    var status: ExitStatus
    /// What happened, in one sentence.
    var message: String
    /// What to do next, when there is something useful to say.
    var hint: String?

    init(_ status: ExitStatus, _ message: String, hint: String? = nil) {
        self.status = status
        self.message = message
        self.hint = hint
    }

    /// The lines to print.
    var lines: [String] {
        ["latchkey: \(message)"] + (hint.map { ["  \($0)"] } ?? [])
    }

    static func usage(_ message: String, hint: String? = nil) -> ClientFailure {
        ClientFailure(.usage, message, hint: hint)
    }

    /// "Not signed in", with the profile named when it is not the default one.
    static func notSignedIn(profile: String) -> ClientFailure {
        ClientFailure(
            .notSignedIn, "Not signed in\(ProfileName.suffix(profile)).", hint: "Run 'latchkey login\(ProfileName.flag(profile))' to sign in.")
    }
}

extension ClientFailure {
    /// Maps the library's error taxonomy onto words and an exit code. `signingIn` when the
    /// failure ended a `login` or `signup` (there is no session to keep then).
    init(_ failure: AuthFailure, profile: String, server: String?, signingIn: Bool = false) {
        let presentation = failure.presentation
        let login = "latchkey login\(ProfileName.flag(profile))"
        switch failure.category {
        case .invalidCredentials:
            // The library's words suggest an app's "Forgot Password?" button; here it is a command.
            self.init(
                .notSignedIn, "Incorrect email or password.",
                hint: "Check them and run '\(login)' again; forgot the password? Run 'latchkey reset-password\(ProfileName.flag(profile))'.")
        case .emailNotConfirmed:
            self.init(.notSignedIn, presentation.message, hint: "Open the confirmation link, then run '\(login)'.")
        case .accountDisabled:
            self.init(.notSignedIn, presentation.message)
        case .sessionRevoked:
            self.init(.notSignedIn, presentation.message, hint: "Run '\(login)' to sign in again.")
        case .notSignedIn:
            self = .notSignedIn(profile: profile)
        case .rateLimited(let retryAfter) where failure.code == "over_email_send_rate_limit":
            let wait = retryAfter.map { " or wait \(Durations.spoken($0)) and ask again" } ?? ", or wait a minute and ask again"
            self.init(
                .other, "The server mailed this address a moment ago and will not send another email yet.",
                hint: "Use the code or link in the last email\(wait).")
        case .rateLimited(let retryAfter):
            let wait = retryAfter.map { "The server asks to wait \(Durations.spoken($0)) before trying again." }
            self.init(.other, presentation.message, hint: wait)
        case .network:
            let target = server.map { " (\($0))" } ?? ""
            self.init(
                .network, "Could not reach the server\(target). \(presentation.message).",
                hint: signingIn
                    ? "Check that the server is running and that the URL is right."
                    : "Your session is kept; run the command again when the server is reachable.")
        case .server:
            self.init(.other, presentation.message)
        case .permission:
            let message =
                failure.code == "signup_disabled"
                ? "This server does not accept new sign-ups." : presentation.message
            self.init(.other, message)
        case .storage(let error):
            self.init(.other, presentation.message, hint: Self.storageHint(error))
        case .invalidInput:
            self.init(.usage, presentation.message)
        case .accountExists:
            self.init(
                .other, "An account with this email already exists.",
                hint: "Run '\(login)' instead, or 'latchkey reset-password\(ProfileName.flag(profile))' if you forgot the password.")
        case .unknown:
            self.init(.other, presentation.message)
        }
    }

    /// Maps why there is no session onto words and an exit code.
    init(signedOut reason: SignOutReason, profile: String) {
        let login = "Run 'latchkey login\(ProfileName.flag(profile))' to sign in again."
        switch reason {
        case .noSession, .userInitiated, .staleInstall:
            self = .notSignedIn(profile: profile)
        case .sessionRevoked(let code):
            self.init(.notSignedIn, "Your session has ended: \(Self.revocation(code)).", hint: login)
        case .userDeleted:
            self.init(.notSignedIn, "Your session has ended: the account was deleted on the server.", hint: login)
        case .userBanned:
            self.init(.notSignedIn, "Your session has ended: the account is disabled. Contact support.")
        case .maximumSessionAgeExceeded:
            self.init(.notSignedIn, "Your session has ended: it reached its maximum age.", hint: login)
        case .signedOutElsewhere:
            self.init(.notSignedIn, "Your session has ended: another latchkey command signed out.", hint: login)
        case .offlineGracePeriodExceeded:
            self.init(
                .network, "The server has not been reachable for too long to trust the saved session.",
                hint: "Your credentials are kept; run the command again when the server is reachable.")
        case .storageFailure(let error):
            self.init(AuthFailure(.storage(error)), profile: profile, server: nil)
        }
    }

    /// Words for the server's reason a session ended.
    static func revocation(_ code: String) -> String {
        switch code {
        case "session_expired": "it expired on the server"
        case "refresh_token_already_used": "its refresh token was used twice, so the server ended it to be safe"
        default: "it was signed out or revoked on the server"
        }
    }

    static func storageHint(_ error: StorageError) -> String {
        switch error {
        case .locked, .authenticationFailed:
            "Unlock your desktop keyring and run the command again."
        case .unavailable:
            "Check that a keyring (GNOME Keyring, KWallet, KeePassXC) runs in this session and DBUS_SESSION_BUS_ADDRESS is set, or sign in with '--store file'."
        case .corrupted:
            "The saved credentials cannot be read back; run 'latchkey logout' and sign in again."
        case .status:
            "The credential store reported an error; run the command again, or sign in with '--store file'."
        }
    }
}
