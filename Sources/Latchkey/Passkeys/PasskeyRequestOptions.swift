import Foundation

/// What an authenticator needs to sign in with a passkey: WebAuthn's
/// `PublicKeyCredentialRequestOptions` as the server sent them
/// (`POST /passkeys/authentication/options`), the binary fields decoded.
///
/// The server asks for a discoverable credential: ``allowedCredentialIDs`` is empty, and the
/// authenticator offers the person every passkey it holds for ``relyingPartyID``.
public struct PasskeyRequestOptions: Sendable, Hashable {
    /// How the authenticator asks the person.
    public enum Mediation: Sendable, Hashable {
        /// A sheet the person answers now (WebAuthn's default mediation).
        case modal
        /// The passkeys are offered among the keyboard's suggestions for the sign-in form's
        /// username field, and the request waits until the person picks one (WebAuthn's
        /// `conditional` mediation; `performAutoFillAssistedRequests()` on iOS). An authenticator
        /// that cannot wait this way asks as ``modal`` does.
        case autoFill
    }

    /// The relying party identifier, e.g. `example.com`.
    public var relyingPartyID: String
    /// The server's random challenge, signed over through the client data.
    public var challenge: Data
    /// How long the server waits for the answer, when it said.
    public var timeout: TimeInterval?
    /// The credentials that may answer; empty for any passkey of the relying party.
    public var allowedCredentialIDs: [Data]
    /// Whether to verify the user.
    public var userVerification: PasskeyUserVerification
    /// How to ask the person.
    public var mediation: Mediation

    public init(
        relyingPartyID: String, challenge: Data, timeout: TimeInterval? = nil, allowedCredentialIDs: [Data] = [],
        userVerification: PasskeyUserVerification = .preferred, mediation: Mediation = .modal
    ) {
        self.relyingPartyID = relyingPartyID
        self.challenge = challenge
        self.timeout = timeout
        self.allowedCredentialIDs = allowedCredentialIDs
        self.userVerification = userVerification
        self.mediation = mediation
    }
}
