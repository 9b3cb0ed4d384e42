/// How adding a passkey ended.
public enum PasskeyRegistrationResult: Sendable, Hashable {
    /// The server verified the new passkey; it can sign in from now on.
    case registered(Passkey)
    /// The person closed the sheet: no passkey was made, and there is nothing to tell them.
    case cancelled
}
