/// Where the user stands: what a launch screen routes on.
public enum AuthState: Sendable, Hashable {
    /// ``SessionManager/restore()`` has not decided yet: show the launch screen.
    case unknown
    /// Signed in with a session the server has accepted (or that is still valid).
    case signedIn(Session)
    /// Signed in from the stored session because the server could not be reached; within the
    /// offline grace period. Latchkey keeps retrying and moves to ``signedIn(_:)`` when it can.
    case signedInOffline(Session)
    /// No usable session, and why.
    case signedOut(SignOutReason)

    /// The session, when signed in (online or offline).
    public var session: Session? {
        switch self {
        case .signedIn(let session), .signedInOffline(let session): session
        case .unknown, .signedOut: nil
        }
    }

    /// Whether the user is signed in (online or offline).
    public var isSignedIn: Bool { session != nil }
}

/// The app's lifecycle phase, mirroring SwiftUI's `ScenePhase`. Report it with
/// ``SessionManager/setPhase(_:)``: proactive refresh runs only while `active`.
public enum AppPhase: Sendable, Hashable {
    case active
    case inactive
    case background
}

/// Something that happened to the session. Subscribe with ``SessionManager/events()``.
public enum SessionEvent: Sendable, Hashable {
    /// Where things stood once launch was decided (also the first event of a late subscriber).
    case initialSession(Session?)
    /// The user signed in (password, sign-up with auto-confirm, verification link).
    case signedIn(Session)
    /// The tokens were renewed.
    case tokenRefreshed(Session)
    /// The account has a verified second factor but this session is at `aal1`: ask the user
    /// for a code from their authenticator app
    /// (``AuthMFA/challengeAndVerify(factorID:code:)``). Emitted after a sign-in and
    /// when launch restores such a session; ``Session/requiresSecondFactor`` says the same at
    /// any time.
    case secondFactorRequired(Session)
    /// A code from an authenticator app was verified: the session, with new tokens, is at
    /// `aal2` (it replaces the previous tokens as ``tokenRefreshed(_:)`` would).
    case secondFactorVerified(Session)
    /// The user's profile changed (update, or a re-fetch after a long background).
    case userUpdated(User)
    /// The session will end for good (maximum session age) in this many seconds.
    case sessionExpiring(in: Double)
    /// A refresh failed for a transient reason; the session is kept and retried with backoff.
    case refreshFailed(AuthFailure)
    /// The credential store failed; the session is still usable in memory.
    case storageFailed(StorageError)
    /// The session ended, and why.
    case signedOut(SignOutReason)
}
