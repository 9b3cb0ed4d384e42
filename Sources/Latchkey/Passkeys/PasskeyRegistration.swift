import Foundation

/// A passkey an authenticator just created: WebAuthn's `AuthenticatorAttestationResponse` and
/// the credential's id, as raw bytes. ``AuthPasskeys/register(name:)`` sends it to the server
/// to verify.
public struct PasskeyRegistration: Sendable, Hashable {
    /// The new credential's id.
    public var credentialID: Data
    /// The client data JSON the authenticator signed over (type `webauthn.create`, the
    /// challenge, the origin).
    public var clientDataJSON: Data
    /// The CBOR attestation object: the authenticator data with the new public key, and the
    /// attestation statement.
    public var attestationObject: Data
    /// How the authenticator can be reached (`internal`, `hybrid`, `usb`…), when it said.
    public var transports: [String]
    /// `platform` for an authenticator built into the device, `cross-platform` for a security
    /// key or a phone; `nil` when unknown.
    public var attachment: String?

    public init(credentialID: Data, clientDataJSON: Data, attestationObject: Data, transports: [String] = [], attachment: String? = nil) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
        self.attachment = attachment
    }
}
