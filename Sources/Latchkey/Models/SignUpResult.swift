/// What a sign-up produced.
public enum SignUpResult: Sendable, Equatable {
    /// The server confirmed the account at once (auto-confirm) and signed the user in.
    case signedIn(Session)
    /// The account exists but its email must be confirmed first; a confirmation message was sent.
    case confirmationRequired(User)
}
