import Foundation
import LatchkeyWire

/// Verifying a WebAuthn factor: `{"challenge_id": …, "webauthn": {"type": "create" | "request",
/// "credential_response": <PublicKeyCredential JSON>}}`, as GoTrue's `verifyWebAuthnFactor`.
///
/// - The body is checked in GoTrue's order and with its answers (400 `validation_failed`:
///   `WebAuthn config required`, `WebAuthn type must be create or request`,
///   `credential_response required`, `Invalid credential_response`).
/// - The challenge is checked as for TOTP (the factor's, unspent, same address, not expired),
///   and its ceremony must be the body's: `create` for an unverified factor, `request` for a
///   verified one.
/// - From then on the challenge is spent by this answer, right or wrong: a response is verified
///   once. `create` verifies the registration (origin, RP ID hash, challenge, user presence,
///   attestation `none` or `packed`) and stores the credential on the factor, refusing one the
///   user already has as another factor or a passkey; `request` verifies the assertion against
///   the factor's own credential and refuses a signature counter that did not advance.
/// - A response that does not verify is 422 `mfa_verification_failed` (GoTrue answers 500),
///   audited with the reason, and counted against the factor like a wrong TOTP code.
/// - Success raises the session as TOTP does, with `mfa/webauthn` in its `amr`.
extension FactorVerification {
    func verifyWebAuthn(
        _ factorID: UUID, with body: VerifyFactorBody, by signedIn: BearerAuthentication.Authenticated, ipAddress: String
    ) async throws -> SessionResponse {
        let user = signedIn.user
        guard rules.webAuthnVerifyEnabled else { throw AuthError.webAuthnVerifyDisabled }
        guard let parameters = body.webauthn else { throw AuthError.webAuthnParamsRequired }
        guard let ceremony = parameters.type.flatMap(FactorWebAuthnChallenge.Ceremony.init(rawValue:)) else {
            throw AuthError.webAuthnTypeInvalid
        }
        guard let value = parameters.credential_response, value != .null else { throw AuthError.webAuthnResponseRequired }
        // GoTrue builds its relying party here; without a usable one the verification fails.
        guard rules.webAuthnUsable else { throw AuthError.unexpected }
        guard let challengeID = body.challenge_id.flatMap(UUID.init(uuidString:)) else { throw AuthError.challengeNotFound }
        try await limits.checkMFACodeAttempts(for: factorID)
        let credential = try PasskeyCeremonies.parseCredential(value, refusal: .webAuthnResponseInvalid)
        let passkeys = ceremony == .create ? try await store.passkeys(userID: user.id).map(\.credentialID) : []

        let (rules, relyingParty) = (rules, relyingParty)
        return try await run(factorID, challengeID: challengeID, by: signedIn, counting: .webAuthnFactorRefused, "WebAuthn response") {
            state, now, refreshToken in
            Self.webAuthnPlan(
                state, factorID: factorID, ceremony: ceremony, credential: credential, passkeys: passkeys, user: user, ipAddress: ipAddress,
                now: now, refreshToken: refreshToken, rules: rules, relyingParty: relyingParty)
        }
    }

    /// The decision for one WebAuthn response: a pure function of the state (the signature is
    /// checked here, under the user's lock, so the counter it compares is the stored one).
    private static func webAuthnPlan(
        _ state: FactorState, factorID: UUID, ceremony: FactorWebAuthnChallenge.Ceremony, credential: PasskeyCredential, passkeys: [[UInt8]],
        user: UserRecord, ipAddress: String, now: Date, refreshToken: String, rules: FactorRules, relyingParty: RelyingParty
    ) -> FactorPlan<FactorOutcome<Verified>> {
        let opened = openChallenge(
            state, factorID: factorID, type: FactorRecord.webAuthnType, otherwise: .factorNotFound, user: user, ipAddress: ipAddress, now: now,
            rules: rules)
        guard case .success(let (found, challenge, session)) = opened else {
            guard case .failure(let refusal) = opened else { return FactorPlan(changes: [], result: .failure(.unexpected)) }
            return FactorPlan(changes: refusal.changes, result: .failure(refusal.error))
        }
        guard let webAuthn = challenge.webAuthn, webAuthn.ceremony == ceremony, (ceremony == .create) == !found.isVerified else {
            return FactorPlan(changes: [], result: .failure(.webAuthnCeremonyMismatch))
        }
        var traits: [String: JSONValue] = [
            "factor_id": .string(found.id.lowercasedString), "challenge_id": .string(challenge.id.lowercasedString),
            "factor_type": .string(found.factorType),
        ]
        var factor = found
        do throws(WebAuthnCeremonyRefusal) {
            switch ceremony {
            case .create:
                let others = state.factors.filter { $0.id != factor.id }.compactMap { $0.webAuthnCredential?.credentialID } + passkeys
                factor.webAuthnCredential = try registered(credential, challenge: webAuthn.challenge, relyingParty: relyingParty, excluding: others)
            case .request:
                factor.webAuthnCredential = try asserted(
                    credential, challenge: webAuthn.challenge, stored: factor.webAuthnCredential, user: user, relyingParty: relyingParty)
            }
        } catch {
            traits["error_code"] = .string(error.answer.code)
            traits["reason"] = .string(error.reason)
            return FactorPlan(
                changes: [.markChallengeVerified(id: challenge.id, at: now), .audit(audit(user, traits: traits, ipAddress: ipAddress, now: now))],
                result: .failure(error.answer))
        }
        return success(
            factor: factor, method: "mfa/webauthn", session: session, challenge: challenge, state: state, user: user, traits: traits,
            ipAddress: ipAddress, now: now, refreshToken: refreshToken)
    }

    /// The credential a registration response proves, or why not.
    private static func registered(
        _ credential: PasskeyCredential, challenge: [UInt8], relyingParty: RelyingParty, excluding others: [[UInt8]]
    ) throws(WebAuthnCeremonyRefusal) -> FactorCredential {
        guard let clientData = PasskeyCeremonies.bytes(credential.response.clientDataJSON),
            let attestationObject = PasskeyCeremonies.bytes(credential.response.attestationObject),
            let rawID = PasskeyCeremonies.bytes(credential.rawId ?? credential.id), PasskeyCeremonies.bytes(credential.id) == rawID
        else { throw WebAuthnCeremonyRefusal("not a registration response") }
        let verified: VerifiedRegistration
        do {
            verified = try relyingParty.verifyRegistration(
                RegistrationResponse(
                    clientDataJSON: clientData, attestationObject: attestationObject, transports: credential.response.transports ?? []),
                challenge: challenge, requireUserVerification: false)
        } catch {
            throw WebAuthnCeremonyRefusal("\(error)")
        }
        guard verified.credentialID == rawID else { throw WebAuthnCeremonyRefusal("credential id differs from the attested one") }
        guard !others.contains(verified.credentialID) else {
            throw WebAuthnCeremonyRefusal("credential already registered to the user", answer: .passkeyExists)
        }
        let aaguid = verified.aaguid == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) ? nil : verified.aaguid
        return FactorCredential(
            credentialID: verified.credentialID, publicKey: verified.publicKey, attestationType: verified.attestationType.rawValue,
            aaguid: aaguid, signCount: verified.signCount, backupEligible: verified.backupEligible, backedUp: verified.backedUp,
            transports: verified.transports)
    }

    /// The stored credential updated by an assertion response (counter, backup state), or why not.
    private static func asserted(
        _ credential: PasskeyCredential, challenge: [UInt8], stored: FactorCredential?, user: UserRecord, relyingParty: RelyingParty
    ) throws(WebAuthnCeremonyRefusal) -> FactorCredential {
        let response = credential.response
        guard var stored else { throw WebAuthnCeremonyRefusal("factor has no credential") }
        guard let clientData = PasskeyCeremonies.bytes(response.clientDataJSON),
            let authenticatorData = PasskeyCeremonies.bytes(response.authenticatorData),
            let signature = PasskeyCeremonies.bytes(response.signature),
            let rawID = PasskeyCeremonies.bytes(credential.rawId ?? credential.id), PasskeyCeremonies.bytes(credential.id) == rawID
        else { throw WebAuthnCeremonyRefusal("not an assertion response") }
        let userHandle = PasskeyCeremonies.bytes(response.userHandle).flatMap { $0.isEmpty ? nil : $0 }
        if let userHandle, !constantTimeEquals(userHandle, PasskeyCeremonies.userHandle(of: user.id)) {
            throw WebAuthnCeremonyRefusal("user handle is not the account's")
        }
        let outcome: AssertionOutcome
        do {
            outcome = try relyingParty.verifyAssertion(
                AssertionResponse(
                    credentialID: rawID, clientDataJSON: clientData, authenticatorData: authenticatorData, signature: signature,
                    userHandle: userHandle),
                challenge: challenge,
                credential: StoredCredential(
                    credentialID: stored.credentialID, publicKey: stored.publicKey, signCount: stored.signCount,
                    backupEligible: stored.backupEligible),
                requireUserVerification: false)
        } catch {
            throw WebAuthnCeremonyRefusal("\(error)")
        }
        guard case .verified(let assertion) = outcome else { throw WebAuthnCeremonyRefusal("signature counter did not advance") }
        stored.signCount = assertion.signCount
        stored.backedUp = assertion.backedUp
        return stored
    }
}

/// Why a WebAuthn response was refused: the reason for the audit log (never the payload) and
/// the answer.
private struct WebAuthnCeremonyRefusal: Error {
    var reason: String
    var answer: AuthError

    init(_ reason: String, answer: AuthError = .webAuthnFactorRefused) {
        self.reason = String(reason.prefix(200))
        self.answer = answer
    }
}
