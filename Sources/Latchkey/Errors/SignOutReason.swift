/// Why there is no usable session. Carried by ``AuthState/signedOut(_:)`` and
/// ``SessionEvent/signedOut(_:)`` so an app can tell the user what happened.
public enum SignOutReason: Sendable, Hashable {
    /// Nothing was stored: first launch, or the user signed out earlier.
    case noSession
    /// The user asked to sign out.
    case userInitiated
    /// The server says the session is over (`refresh_token_not_found`,
    /// `refresh_token_already_used`, `session_not_found`, `session_expired`): revoked by an
    /// admin, signed out everywhere, or expired by server policy.
    case sessionRevoked(code: String)
    /// The account was deleted on the server.
    case userDeleted
    /// The account is banned (disabled).
    case userBanned
    /// Credentials survived an uninstall (the keychain does) but the app was reinstalled: they
    /// were wiped rather than silently signing in.
    case staleInstall
    /// The session is older than ``SessionManagerConfiguration/maximumSessionAge``.
    case maximumSessionAgeExceeded
    /// Offline at launch for longer than ``SessionManagerConfiguration/offlineGracePeriod``
    /// since the last contact with the server. The credentials are kept: ``SessionManager/restore()``
    /// signs in again once the server answers.
    case offlineGracePeriodExceeded
    /// The stored credentials could not be read. Nothing was wiped: if the store was locked,
    /// ``SessionManager/restore()`` succeeds once it is unlocked.
    case storageFailure(StorageError)
    /// Another process sharing the credential store signed out.
    case signedOutElsewhere

    /// Whether the credentials were kept because the session may still be good (storage
    /// failure, offline too long). The app should offer a retry rather than only a login form.
    public var credentialsKept: Bool {
        switch self {
        case .storageFailure, .offlineGracePeriodExceeded: true
        default: false
        }
    }
}
