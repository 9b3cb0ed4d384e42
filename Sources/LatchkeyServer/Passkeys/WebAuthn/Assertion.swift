import Crypto

/// What a browser returns from `navigator.credentials.get()`, as the routes will receive it.
package struct AssertionResponse: Sendable {
    /// The credential's `rawId`.
    package var credentialID: [UInt8]
    package var clientDataJSON: [UInt8]
    package var authenticatorData: [UInt8]
    package var signature: [UInt8]
    /// The user handle a discoverable credential returns (the account's WebAuthn user id).
    package var userHandle: [UInt8]?

    package init(credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// The stored credential an assertion is checked against (what a ``VerifiedRegistration`` stored).
package struct StoredCredential: Sendable {
    package var credentialID: [UInt8]
    /// COSE_Key bytes.
    package var publicKey: [UInt8]
    package var signCount: UInt32
    package var backupEligible: Bool

    package init(credentialID: [UInt8], publicKey: [UInt8], signCount: UInt32, backupEligible: Bool) {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.signCount = signCount
        self.backupEligible = backupEligible
    }
}

/// An assertion whose signature verified: what to update on the stored credential.
package struct VerifiedAssertion: Hashable, Sendable {
    /// The counter the authenticator reported (store it unless it regressed).
    package let signCount: UInt32
    /// BS now: whether the credential is backed up (it may change between assertions).
    package let backedUp: Bool
    /// UV: the user was verified.
    let userVerified: Bool
    /// The user handle the authenticator returned, for discoverable sign-in: the caller finds
    /// the account by it and checks it owns the credential.
    let userHandle: [UInt8]?
}

/// The outcome of an assertion whose signature verified (WebAuthn Level 3 §7.2 step 23).
package enum AssertionOutcome: Hashable, Sendable {
    /// Everything checks; the counter advanced, or the authenticator keeps none (both 0).
    case verified(VerifiedAssertion)
    /// The signature is good but the counter did not advance past the stored one: a sign the
    /// authenticator may have been cloned. The caller decides (GoTrue's library refuses); never
    /// to be taken for ``verified(_:)`` without thought.
    case signCountRegressed(VerifiedAssertion, stored: UInt32)
}

extension RelyingParty {
    /// Verifies an assertion (WebAuthn Level 3 §7.2) against the challenge this server issued
    /// and the stored credential: the credential id, client data (type `webauthn.get`,
    /// challenge, origin, top origin), rpIdHash, UP, UV when `requireUserVerification`, BE
    /// unchanged and BS only with BE, the signature over authData || SHA-256(clientDataJSON)
    /// with the stored key and its algorithm among ``algorithms``, then the counter.
    ///
    /// That the credential belongs to the user being signed in (or to the user handle's
    /// account) is the caller's check.
    package func verifyAssertion(
        _ response: AssertionResponse, challenge: [UInt8], credential: StoredCredential, requireUserVerification: Bool
    ) throws(WebAuthnError) -> AssertionOutcome {
        guard constantTimeEquals(response.credentialID, credential.credentialID) else { throw .credentialIDMismatch }
        let clientData = try CollectedClientData(json: response.clientDataJSON)
        try clientData.verify(type: "webauthn.get", challenge: challenge, relyingParty: self)

        let authData = try AuthenticatorData(response.authenticatorData)
        try verifyCommon(authData, requireUserVerification: requireUserVerification)
        guard authData.flags.contains(.backupEligible) == credential.backupEligible else { throw .backupEligibilityChanged }

        let key = try COSEKey(bytes: credential.publicKey)
        guard algorithms.contains(key.algorithm) else { throw .algorithmNotAllowed(key.algorithm.rawValue) }
        let signed = response.authenticatorData + Array(SHA256.hash(data: response.clientDataJSON))
        guard key.isValidSignature(response.signature, for: signed) else { throw .invalidSignature }

        let result = VerifiedAssertion(
            signCount: authData.signCount, backedUp: authData.flags.contains(.backedUp),
            userVerified: authData.flags.contains(.userVerified), userHandle: response.userHandle)
        if (authData.signCount != 0 || credential.signCount != 0) && authData.signCount <= credential.signCount {
            return .signCountRegressed(result, stored: credential.signCount)
        }
        return .verified(result)
    }
}
