/// How a sign-in with a passkey ended.
public enum PasskeySignInResult: Sendable, Hashable {
    /// Signed in: the session is stored and published like every other sign-in's.
    case signedIn(Session)
    /// The person closed the passkey sheet: nothing changed, and there is nothing to tell them.
    case cancelled
}
