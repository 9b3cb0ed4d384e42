import Foundation
import LatchkeyWire

/// `POST /passkeys/registration/options` and `/verify`: a signed-in user adds a passkey
/// (GoTrue's `PasskeyRegistrationOptions` and `PasskeyRegistrationVerify`).
///
/// Anonymous users cannot; a user with a verified second factor needs an `aal2` session. The
/// per-user limit is checked when the options are asked for and again, under the user's lock,
/// when the passkey is stored.
struct PasskeyRegistration: Sendable {
    let ceremonies: PasskeyCeremonies

    func options(for signedIn: BearerAuthentication.Authenticated) async throws -> PasskeyOptionsResponse<PublicKeyCredentialCreationOptionsJSON> {
        try await options(for: signedIn.user, in: signedIn.session)
    }

    /// The creation options for `user`, signed in with `session` (a bearer token's, or the
    /// session a hosted page's form ticket stands for).
    func options(for user: UserRecord, in session: SessionRecord) async throws -> PasskeyOptionsResponse<PublicKeyCredentialCreationOptionsJSON> {
        try FactorRules.requireNotAnonymous(user)
        try await ceremonies.requireManagementAssurance(of: user, in: session)
        let existing = try await ceremonies.store.passkeys(userID: user.id)
        guard existing.count < ceremonies.settings.maximumPerUser else { throw AuthError.tooManyPasskeys }
        let challenge = try await ceremonies.issueChallenge(.registration, for: user.id)
        let relyingParty = ceremonies.relyingParty
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: ceremonies.relyingPartyEntity, user: PasskeyCeremonies.userEntity(of: user), challenge: Base64URL.encode(challenge.challenge),
            pubKeyCredParams: relyingParty.algorithms.map { PasskeyCredentialParameters(alg: $0.rawValue) },
            timeout: ceremonies.timeoutMilliseconds,
            excludeCredentials: existing.isEmpty ? nil : existing.map { PasskeyCredentialDescriptor(id: $0.credentialKey) },
            authenticatorSelection: .init(), attestation: "none")
        return PasskeyOptionsResponse(
            challenge_id: challenge.id.lowercasedString, options: options, expires_at: Int(challenge.expiresAt.timeIntervalSince1970))
    }

    func verify(_ body: PasskeyVerifyWire, by signedIn: BearerAuthentication.Authenticated, ipAddress: String) async throws -> PasskeyResponse {
        try await verify(body, for: signedIn.user, in: signedIn.session, ipAddress: ipAddress)
    }

    /// Verifies and stores the passkey of `user`, signed in with `session`.
    func verify(_ body: PasskeyVerifyWire, for user: UserRecord, in session: SessionRecord, ipAddress: String) async throws -> PasskeyResponse {
        try FactorRules.requireNotAnonymous(user)
        try await ceremonies.requireManagementAssurance(of: user, in: session)
        let (challenge, value) = try await ceremonies.spendChallenge(body, kind: .registration, userID: user.id)
        let credential = try PasskeyCeremonies.parseCredential(value)
        guard let clientData = PasskeyCeremonies.bytes(credential.response.clientDataJSON),
            let attestationObject = PasskeyCeremonies.bytes(credential.response.attestationObject),
            let rawID = PasskeyCeremonies.bytes(credential.rawId ?? credential.id), PasskeyCeremonies.bytes(credential.id) == rawID
        else { throw AuthError.invalidPasskeyCredential }

        let verified: VerifiedRegistration
        do {
            verified = try ceremonies.relyingParty.verifyRegistration(
                RegistrationResponse(
                    clientDataJSON: clientData, attestationObject: attestationObject, transports: credential.response.transports ?? []),
                challenge: challenge.challenge, requireUserVerification: false)
        } catch {
            throw ceremonies.refused("\(error)", ceremony: "registration")
        }
        guard verified.credentialID == rawID else {
            throw ceremonies.refused("credential id differs from the attested one", ceremony: "registration")
        }

        let now = ceremonies.clock.now()
        let aaguid = verified.aaguid == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) ? nil : verified.aaguid
        let passkey = PasskeyRecord(
            userID: user.id, credentialID: verified.credentialID, publicKey: verified.publicKey,
            attestationType: verified.attestationType.rawValue, aaguid: aaguid, signCount: verified.signCount,
            transports: verified.transports, backupEligible: verified.backupEligible, backedUp: verified.backedUp,
            friendlyName: AuthenticatorNames.name(for: aaguid), createdAt: now, updatedAt: now)
        let audit = AuditEntry(
            action: .passkeyCreated, actorID: user.id, actorUsername: user.email, traits: ["passkey_id": .string(passkey.id.lowercasedString)],
            ipAddress: ipAddress, createdAt: now)
        let limit = ceremonies.settings.maximumPerUser
        do {
            try await ceremonies.store.changePasskeys(of: user.id) { current in
                guard current.count < limit else { throw AuthError.tooManyPasskeys }
                return PasskeyPlan(changes: [.insert(passkey), .audit(audit)], result: ())
            }
        } catch StoreError.duplicateCredential {
            throw AuthError.passkeyExists
        }
        return PasskeyResponse(passkey)
    }
}
