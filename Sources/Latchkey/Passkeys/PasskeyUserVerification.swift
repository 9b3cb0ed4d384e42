/// Whether the authenticator must check who is holding it (Face ID, Touch ID, a device
/// passcode, a PIN) before it uses a passkey: WebAuthn's `userVerification`.
public enum PasskeyUserVerification: String, Sendable, Hashable, Codable {
    /// The relying party refuses a response without user verification.
    case required
    /// Verify the user when the authenticator can (the WebAuthn default).
    case preferred
    /// Do not ask for verification unless the authenticator always does.
    case discouraged
}
