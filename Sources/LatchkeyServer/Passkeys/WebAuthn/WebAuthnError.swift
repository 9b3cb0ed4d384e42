/// Why a WebAuthn registration or assertion was refused: one precise reason per check, for the
/// routes to map onto GoTrue's errors. Never carries secrets or whole payloads: at most a short
/// name the client sent (an attestation format, a ceremony type) or a number.
package enum WebAuthnError: Error, Hashable, Sendable {
    // clientDataJSON (§7.1 steps 5-12, §7.2 steps 10-16)
    /// clientDataJSON is not a JSON object with string `type`, `challenge` and `origin`.
    case malformedClientData
    /// clientDataJSON's `type` is not the ceremony's (`webauthn.create` or `webauthn.get`).
    case wrongCeremonyType(String)
    /// clientDataJSON's `challenge` is not the one the server issued for this ceremony.
    case challengeMismatch
    /// clientDataJSON's `origin` is not among the relying party's origins.
    case originNotAllowed
    /// The ceremony ran in a cross-origin iframe (`crossOrigin: true`) and the relying party
    /// allows no top origins.
    case crossOriginNotAllowed
    /// clientDataJSON's `topOrigin` is not among the relying party's allowed top origins.
    case topOriginNotAllowed

    // attestationObject (§7.1 step 12)
    /// The attestation object is not CBOR, or not a map with `fmt`, `attStmt` and `authData`.
    case malformedAttestationObject(CBORError?)
    /// An attestation statement format this server does not verify.
    case unsupportedAttestationFormat(String)
    /// The attestation statement does not have the shape its format requires.
    case malformedAttestationStatement
    /// The attestation statement's `alg` is not the credential's.
    case attestationAlgorithmMismatch
    /// The attestation signature does not verify.
    case invalidAttestationSignature
    /// The packed attestation certificate is not usable or breaks §8.2.1's requirements.
    case invalidAttestationCertificate(String)

    // authenticator data (§6.1)
    /// The authenticator data is too short, has bytes it does not account for, or its
    /// extensions are not a CBOR map.
    case malformedAuthenticatorData
    /// The attested credential data's credential id is longer than 1023 bytes.
    case credentialIDTooLong
    /// A registration whose authenticator data has no attested credential data (AT clear).
    case missingAttestedCredentialData
    /// The authenticator data's rpIdHash is not SHA-256 of the relying party id.
    case rpIDHashMismatch
    /// User presence (UP) is not set.
    case userNotPresent
    /// User verification (UV) is required and not set.
    case userNotVerified
    /// Backup state (BS) set without backup eligibility (BE).
    case backupStateWithoutEligibility
    /// Backup eligibility (BE) differs from the stored credential's (it never changes).
    case backupEligibilityChanged

    // keys and signatures
    /// The credential public key is not a COSE key this server can use.
    case malformedPublicKey(String)
    /// The credential's algorithm is not among those the relying party allows.
    case algorithmNotAllowed(Int)
    /// The assertion's credential id is not the stored credential's.
    case credentialIDMismatch
    /// The assertion signature is not DER (ES256) or the right length, or does not verify.
    case invalidSignature
}
