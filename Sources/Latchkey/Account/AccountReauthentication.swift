/// How a request that erases something proves the person holding the session is its owner,
/// now: what ``AuthAccount/delete(reauthentication:)`` sends.
public enum AccountReauthentication: Sendable, Hashable {
    /// The nonce ``AuthAccount/reauthenticate()`` had mailed (or texted, to an account with only
    /// a phone number).
    case nonce(String)
    /// A second factor verified in this session in the last few minutes
    /// (``AuthMFA/challengeAndVerify(factorID:code:)``): what an account with a verified factor
    /// needs. Nothing else is sent.
    case recentSecondFactor
    /// Nothing beyond the session: what an anonymous user, who has no address to receive a
    /// nonce, sends.
    case sessionOnly

    var nonce: String? {
        if case .nonce(let nonce) = self { nonce } else { nil }
    }
}
