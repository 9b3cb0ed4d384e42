import Foundation

/// A passkey's answer to a sign-in challenge: WebAuthn's `AuthenticatorAssertionResponse` and
/// the credential's id, as raw bytes. ``AuthAccount/signInWithPasskey(mediation:captchaToken:)`` sends it to
/// the server to verify.
public struct PasskeyAssertion: Sendable, Hashable {
    /// The id of the credential that signed.
    public var credentialID: Data
    /// The client data JSON the authenticator signed over (type `webauthn.get`, the challenge,
    /// the origin).
    public var clientDataJSON: Data
    /// The authenticator data: the relying party's hash, the flags, the signature counter.
    public var authenticatorData: Data
    /// The signature over the authenticator data and the client data's SHA-256.
    public var signature: Data
    /// The user handle stored with the passkey (``PasskeyCreationOptions/User/id``): it tells
    /// the server whose passkey this is.
    public var userHandle: Data?
    /// `platform` or `cross-platform`, when known.
    public var attachment: String?

    public init(
        credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?, attachment: String? = nil
    ) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
        self.attachment = attachment
    }
}
