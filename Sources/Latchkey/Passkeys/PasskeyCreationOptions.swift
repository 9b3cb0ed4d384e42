import Foundation

/// What an authenticator needs to create a passkey: WebAuthn's
/// `PublicKeyCredentialCreationOptions` as the server sent them
/// (`POST /passkeys/registration/options`), the binary fields decoded.
///
/// A ``PasskeyAuthenticator`` creates a credential for ``relyingParty`` and ``user``, signs over
/// ``challenge`` (in the client data it returns), and refuses when it already holds one of
/// ``excludedCredentialIDs``.
public struct PasskeyCreationOptions: Sendable, Hashable {
    /// The relying party: the domain the passkey belongs to and the name shown for it.
    public struct RelyingParty: Sendable, Hashable {
        /// The relying party identifier: a domain such as `example.com` (the server's
        /// `--webauthn-rp-id`). On Apple platforms the app must list it as an associated domain
        /// (`webcredentials:example.com`).
        public var id: String
        /// A name for people, e.g. "Example".
        public var name: String

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// The account the passkey signs in to.
    public struct User: Sendable, Hashable {
        /// The user handle the authenticator stores with the passkey and returns at every sign-in
        /// (on the Latchkey server and GoTrue: the UTF-8 bytes of the account's id). Up to 64 bytes.
        public var id: Data
        /// The account name shown in the passkey picker: usually the email address.
        public var name: String
        /// A friendlier name for the account; the server sends the email address again when it
        /// has nothing better.
        public var displayName: String

        public init(id: Data, name: String, displayName: String) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }
    }

    public var relyingParty: RelyingParty
    public var user: User
    /// The server's random challenge, signed over through the client data.
    public var challenge: Data
    /// The COSE algorithms the server accepts, most preferred first (`-7` ES256, `-8` EdDSA,
    /// `-257` RS256).
    public var algorithms: [Int]
    /// How long the server waits for the answer, when it said.
    public var timeout: TimeInterval?
    /// Credentials the account already has: an authenticator holding one of them must not make
    /// another.
    public var excludedCredentialIDs: [Data]
    /// Whether to verify the user (the server's `authenticatorSelection.userVerification`).
    public var userVerification: PasskeyUserVerification
    /// Whether the credential must be discoverable (a passkey is); `true` unless the server says
    /// otherwise.
    public var requiresResidentKey: Bool
    /// The attestation the server asks for (`none`, `indirect`, `direct`, `enterprise`).
    public var attestation: String

    public init(
        relyingParty: RelyingParty, user: User, challenge: Data, algorithms: [Int] = [-7], timeout: TimeInterval? = nil,
        excludedCredentialIDs: [Data] = [], userVerification: PasskeyUserVerification = .preferred, requiresResidentKey: Bool = true,
        attestation: String = "none"
    ) {
        self.relyingParty = relyingParty
        self.user = user
        self.challenge = challenge
        self.algorithms = algorithms
        self.timeout = timeout
        self.excludedCredentialIDs = excludedCredentialIDs
        self.userVerification = userVerification
        self.requiresResidentKey = requiresResidentKey
        self.attestation = attestation
    }
}
