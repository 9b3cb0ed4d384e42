/// How enrolling or verifying a WebAuthn factor ended.
public enum WebAuthnFactorResult: Sendable, Hashable {
    /// The server verified the authenticator's response: the session is now `aal2` (stored,
    /// and announced as ``SessionEvent/secondFactorVerified(_:)``).
    case verified(Session)
    /// The person closed the sheet: nothing changed, and there is nothing to tell them.
    case cancelled
}
