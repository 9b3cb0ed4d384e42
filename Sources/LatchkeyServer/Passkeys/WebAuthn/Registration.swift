import Crypto
import Foundation

/// What a browser returns from `navigator.credentials.create()`, as the routes will receive it
/// (`response.clientDataJSON`, `response.attestationObject`, `response.transports`).
package struct RegistrationResponse: Sendable {
    package var clientDataJSON: [UInt8]
    package var attestationObject: [UInt8]
    /// `getTransports()`: hints stored with the credential, not verified.
    package var transports: [String]

    package init(clientDataJSON: [UInt8], attestationObject: [UInt8], transports: [String] = []) {
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
    }
}

/// A registration the relying party verified: what to store for the new credential.
package struct VerifiedRegistration: Sendable {
    /// The credential id.
    package let credentialID: [UInt8]
    /// The credential public key as COSE_Key bytes, exactly as the authenticator encoded it.
    package let publicKey: [UInt8]
    /// The key's algorithm.
    package let algorithm: COSEAlgorithm
    /// The signature counter at creation.
    package let signCount: UInt32
    /// BE: the credential may be synced between devices.
    package let backupEligible: Bool
    /// BS: the credential is synced now.
    package let backedUp: Bool
    /// UV: the user was verified during the ceremony.
    package let userVerified: Bool
    /// The authenticator model (all zeros when not disclosed).
    package let aaguid: UUID
    /// The transports the client reported, deduplicated, in order.
    package let transports: [String]
    /// The attestation statement format (`none` or `packed`).
    package let attestationFormat: String
    /// What the attestation proves (§6.5.4).
    package let attestationType: AttestationType
}

extension RelyingParty {
    /// Verifies a registration (WebAuthn Level 3 §7.1) against the challenge this server issued
    /// for it: the client data (type `webauthn.create`, challenge, origin, top origin), the
    /// attestation object (CBOR, `fmt`, `attStmt`, `authData`), rpIdHash, UP, UV when
    /// `requireUserVerification`, BE/BS consistency, the credential's algorithm among
    /// ``algorithms``, and the attestation statement (`none`, or `packed` self or x5c).
    ///
    /// Whether the credential id is already registered (step 26) is the caller's check: it
    /// owns the storage.
    package func verifyRegistration(
        _ response: RegistrationResponse, challenge: [UInt8], requireUserVerification: Bool
    ) throws(WebAuthnError) -> VerifiedRegistration {
        let clientData = try CollectedClientData(json: response.clientDataJSON)
        try clientData.verify(type: "webauthn.create", challenge: challenge, relyingParty: self)
        let clientDataHash = Array(SHA256.hash(data: response.clientDataJSON))

        let object: CBORValue
        do {
            object = try CBORDecoder.decode(response.attestationObject)
        } catch {
            throw .malformedAttestationObject(error)
        }
        guard object.map != nil, let format = object["fmt"]?.text, let statement = object["attStmt"], statement.map != nil,
            let authDataBytes = object["authData"]?.bytes
        else { throw .malformedAttestationObject(nil) }

        let authData = try AuthenticatorData(authDataBytes)
        try verifyCommon(authData, requireUserVerification: requireUserVerification)
        guard let credential = authData.attestedCredential else { throw .missingAttestedCredentialData }
        guard algorithms.contains(credential.publicKey.algorithm) else {
            throw .algorithmNotAllowed(credential.publicKey.algorithm.rawValue)
        }

        let attestationType = try AttestationStatement.verify(
            format: format, statement: statement, authData: authData, credential: credential, clientDataHash: clientDataHash)

        var transports: [String] = []
        for transport in response.transports where !transports.contains(transport) { transports.append(transport) }
        return VerifiedRegistration(
            credentialID: credential.credentialID, publicKey: credential.publicKeyBytes, algorithm: credential.publicKey.algorithm,
            signCount: authData.signCount, backupEligible: authData.flags.contains(.backupEligible),
            backedUp: authData.flags.contains(.backedUp), userVerified: authData.flags.contains(.userVerified),
            aaguid: credential.aaguid, transports: transports, attestationFormat: format, attestationType: attestationType)
    }
}
