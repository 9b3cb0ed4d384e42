import Foundation

/// Everything ``SessionManager`` lets you tune; every default is what most apps want.
public struct SessionManagerConfiguration: Sendable {
    /// The key under which the session is stored. Default `"latchkey.session"`.
    public var storageKey: String = "latchkey.session"

    /// How long ``SessionManager/restore()`` may wait for the network before deciding from the
    /// stored session (signed in offline). Default 10 s.
    public var launchTimeout: TimeInterval = 10

    /// How long after the last successful contact with the server a launch that cannot reach it
    /// still counts as signed in (offline). Default 7 days.
    public var offlineGracePeriod: TimeInterval = 7 * 24 * 3600

    /// How long before the access token expires the proactive refresh runs (while active).
    /// Capped at half the token's lifetime. Default 5 minutes.
    public var refreshMargin: TimeInterval = 5 * 60

    /// Becoming active after more than this long in the background refreshes the session and
    /// re-fetches the user, to notice a revoked session or a deleted account. Default 1 hour.
    public var foregroundRefreshThreshold: TimeInterval = 3600

    /// Sign the user out this long after they signed in with credentials, whatever the refreshes.
    /// Default `nil` (never).
    public var maximumSessionAge: TimeInterval?

    /// How long before the maximum session age ends the session the
    /// ``SessionEvent/sessionExpiring(in:)`` warning is sent. Default 5 minutes.
    public var sessionExpiryWarning: TimeInterval = 5 * 60

    /// The first retry after a transient refresh failure waits this long, doubling each time up
    /// to ``maximumRetryDelay``. Default 1 s.
    public var initialRetryDelay: TimeInterval = 1

    /// The longest wait between refresh retries. Default 5 minutes.
    public var maximumRetryDelay: TimeInterval = 5 * 60

    /// Whether to refresh proactively before expiry while active. Default `true`.
    public var automaticRefresh: Bool = true

    /// The phase the app starts in. Default ``AppPhase/active``.
    public var initialPhase: AppPhase = .active

    /// Whether the proactive refresh keeps running while the app is in the background. Default
    /// `true` on macOS, where a minimized or hidden window reports the background phase but
    /// the process keeps running (and may show data the whole time); `false` elsewhere, where a
    /// background app is about to be suspended and refreshes when it becomes active again.
    public var refreshesInBackground: Bool = SessionManagerConfiguration.platformRefreshesInBackground

    /// The platform's ``refreshesInBackground``: `true` on macOS, `false` elsewhere.
    public static var platformRefreshesInBackground: Bool {
        #if os(macOS)
        true
        #else
        false
        #endif
    }

    /// A lock file shared by every process that uses the same credential store (an app and its
    /// extensions through an app-group container, or runs of a command-line program). When set,
    /// every write of the stored session — a refresh, a sign-in, a user update, a sign-out —
    /// holds this advisory lock, and a refresh or user update first re-reads the store and
    /// builds on what another process stored, so a refresh token is never spent twice nor a
    /// spent one written back. Default `nil` (one process).
    ///
    /// On iOS put it in the app group's container
    /// (`FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`). The lock is taken
    /// only inside a ``backgroundActivity`` assertion and never held across a suspension.
    public var crossProcessLockURL: URL?

    /// Keeps the process running while it holds the cross-process lock, and says when the
    /// system is about to suspend it (then the lock is given up at once). Default
    /// ``platformBackgroundActivity``: `ExpiringActivity` on iOS, iPadOS, tvOS, watchOS and
    /// visionOS, ``NoBackgroundActivity`` on macOS and Linux. Only used with a
    /// ``crossProcessLockURL``.
    public var backgroundActivity: any BackgroundActivity = SessionManagerConfiguration.platformBackgroundActivity

    /// The longest the cross-process lock is held at a time (a refresh holds it while the server
    /// answers). When it passes, the lock is given up; a refresh that still ends takes the lock
    /// again to store its result, after looking at what other processes stored meanwhile.
    /// Default 20 s (a request times out after 15 s by default).
    public var crossProcessLockMaximumHold: TimeInterval = 20

    /// How long to wait for the lock held by another process before giving up: a refresh then
    /// fails transiently (the session is kept), a user update is kept in memory only, and a
    /// sign-in or sign-out writes anyway. Default 30 s.
    public var crossProcessLockTimeout: TimeInterval = 30

    /// When the system is about to suspend the process while a store write holds the
    /// cross-process lock, how long the ``backgroundActivity``'s expiration handler waits for
    /// that write before it releases the lock anyway. The handler returns only after the lock
    /// is released and the assertion ended, since a process suspended holding a lock on a file
    /// in a shared container is killed (`0xdead10cc`); a write still running then finishes
    /// without the lock. The handler blocks its thread meanwhile (UIKit calls it on the main
    /// thread), so keep this short. Default 1 s (a keychain write takes milliseconds).
    public var crossProcessLockExpirationWait: TimeInterval = 1

    /// The browser sheet that sign-ins and links with a provider open
    /// (``AuthAccount/signInWithOAuth(provider:redirectTo:scopes:ephemeral:)``): on Apple
    /// platforms `SystemWebAuthenticator`. Default `nil`: those calls throw, and an ID
    /// token or ``AuthAccount/signInURL(provider:redirectTo:scopes:)`` with a browser of the
    /// app's own is the way to sign in with a provider.
    public var webAuthenticator: (any WebAuthenticator)?

    /// What creates passkeys and signs in with them (``AuthPasskeys/register(name:)``,
    /// ``AuthAccount/signInWithPasskey(mediation:captchaToken:)``): on Apple platforms
    /// `SystemPasskeyAuthenticator`, in tests `SoftwarePasskeyAuthenticator` from
    /// `LatchkeyTesting`. Default `nil`: those calls throw ``AuthFailure`` with code
    /// `passkey_authenticator_unavailable`; listing, renaming and removing passkeys work without.
    public var passkeyAuthenticator: (any PasskeyAuthenticator)?

    public init() {}

    /// The retry delay after `attempt` consecutive failures (1-based).
    func retryDelay(attempt: Int) -> TimeInterval {
        let exponent = Double(max(0, min(attempt - 1, 30)))
        return min(initialRetryDelay * pow(2, exponent), maximumRetryDelay)
    }
}
