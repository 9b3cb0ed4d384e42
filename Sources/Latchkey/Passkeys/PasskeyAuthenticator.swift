/// What creates passkeys and signs in with them on the person's behalf: the platform
/// authenticator (Face ID, Touch ID, iCloud Keychain) on Apple platforms, a software one in
/// tests.
///
/// On Apple platforms use `SystemPasskeyAuthenticator` (`ASAuthorizationController`); set it as
/// ``SessionManagerConfiguration/passkeyAuthenticator``. Tests use `SoftwarePasskeyAuthenticator`
/// from `LatchkeyTesting`, which signs with keys it keeps in memory.
///
/// Both methods take and return plain values: the options the server sent, decoded, and the
/// authenticator's raw answer. They throw ``PasskeyAuthenticatorError``;
/// ``PasskeyAuthenticatorError/cancelled`` (the person closed the sheet) is not a failure, and
/// the manager answers it with a `cancelled` result rather than an error.
public protocol PasskeyAuthenticator: Sendable {
    /// Creates a passkey for `options.user` at `options.relyingParty`, after asking the person.
    /// - Throws: ``PasskeyAuthenticatorError``: ``PasskeyAuthenticatorError/cancelled`` when the
    ///   person declined, ``PasskeyAuthenticatorError/credentialExcluded`` when the authenticator
    ///   already holds one of `options.excludedCredentialIDs`.
    func createPasskey(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration

    /// Signs `options.challenge` with a passkey of `options.relyingPartyID` the person picks.
    /// - Throws: ``PasskeyAuthenticatorError``: ``PasskeyAuthenticatorError/cancelled`` when the
    ///   person declined, ``PasskeyAuthenticatorError/noCredentials`` when there is no passkey to
    ///   offer.
    func assertPasskey(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion
}

/// Why a ``PasskeyAuthenticator`` gave no credential.
public enum PasskeyAuthenticatorError: Error, Sendable, Hashable {
    /// The person closed the sheet or declined: nothing to report to them.
    case cancelled
    /// The authenticator holds no passkey for the relying party (or none of those allowed).
    case noCredentials
    /// The authenticator already holds a passkey the server listed as excluded: this account
    /// has a passkey on this device.
    case credentialExcluded
    /// The authenticator refused or failed (no presentation window, the relying party is not an
    /// associated domain of the app, a system error); `reason` is for logs, never shown.
    case failed(reason: String)
}
