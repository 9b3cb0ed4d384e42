import Foundation
import LatchkeyWire

/// `POST /factors/{id}/challenge`: opens a challenge of one of the signed-in user's factors, to
/// be verified from the same address before it expires (GoTrue's `ChallengeFactor`).
///
/// A TOTP challenge waits for a code. A WebAuthn challenge carries the ceremony to run: for an
/// unverified factor, registration options (`create`) that exclude the credentials the user
/// already has as factors or passkeys, so one authenticator is not enrolled twice; for a
/// verified one, request options (`request`) that allow only the factor's own credential.
struct FactorChallenges: Sendable {
    let store: any AuthStore
    let clock: any ServerClock
    let limits: RateLimits
    let rules: FactorRules
    let ceremonies: PasskeyCeremonies

    private struct Opened: Sendable {
        var factor: FactorRecord
        var otherCredentials: [FactorCredential]
    }

    func challenge(_ factorID: UUID, by signedIn: BearerAuthentication.Authenticated, ipAddress: String) async throws -> ChallengeFactorResponse {
        let user = signedIn.user
        try FactorRules.requireNotAnonymous(user)
        try await limits.admitMFARequest(from: ipAddress)
        let now = clock.now()
        let random = PasskeyCeremonies.randomChallenge()
        let rules = rules
        let challengeID = UUID()
        let outcome = try await store.changeFactors(of: user.id, challengeID: nil, sessionID: nil) { state in
            switch FactorRules.owned(factorID, in: state.factors) {
            case .failure(let error):
                return FactorPlan(changes: [], result: FactorOutcome<Opened>.failure(error))
            case .success(var factor):
                if let refusal = rules.requireVerifyEnabled(for: factor) { return FactorPlan(changes: [], result: .failure(refusal)) }
                let webAuthn =
                    factor.factorType == FactorRecord.webAuthnType
                    ? FactorWebAuthnChallenge(ceremony: factor.isVerified ? .request : .create, challenge: random) : nil
                let challenge = ChallengeRecord(id: challengeID, factorID: factorID, createdAt: now, ipAddress: ipAddress, webAuthn: webAuthn)
                factor.lastChallengedAt = now
                let audit = AuditEntry(
                    action: .challengeCreated, actorID: user.id, actorUsername: user.email,
                    traits: ["factor_id": .string(factor.id.lowercasedString), "factor_status": .string(factor.status.rawValue)],
                    ipAddress: ipAddress, createdAt: now)
                let others = state.factors.filter { $0.id != factor.id }.compactMap(\.webAuthnCredential)
                return FactorPlan(
                    changes: [.insertChallenge(challenge), .updateFactor(factor), .audit(audit)],
                    result: .success(Opened(factor: factor, otherCredentials: others)))
            }
        }
        let opened = try outcome.get()
        let expiresAt = rules.expiry(ofChallengeCreatedAt: now)
        var response = ChallengeFactorResponse(
            id: challengeID.lowercasedString, type: opened.factor.factorType, expires_at: Int(expiresAt.timeIntervalSince1970))
        if opened.factor.factorType == FactorRecord.webAuthnType {
            response.webauthn = try await webAuthnOptions(for: opened, user: user, challenge: random)
        }
        return response
    }

    private func webAuthnOptions(for opened: Opened, user: UserRecord, challenge: [UInt8]) async throws -> WebAuthnFactorChallenge {
        let timeout = Int(rules.challengeExpiry * 1000)
        if let credential = opened.factor.webAuthnCredential, opened.factor.isVerified {
            return WebAuthnFactorChallenge(
                .request(
                    PublicKeyCredentialRequestOptionsJSON(
                        challenge: Base64URL.encode(challenge), timeout: timeout, rpId: ceremonies.relyingParty.id,
                        allowCredentials: [PasskeyCredentialDescriptor(id: Base64URL.encode(credential.credentialID))],
                        userVerification: "preferred")))
        }
        let passkeys = try await store.passkeys(userID: user.id).map(\.credentialID)
        let excluded = (opened.otherCredentials.map(\.credentialID) + passkeys).map { PasskeyCredentialDescriptor(id: Base64URL.encode($0)) }
        return WebAuthnFactorChallenge(
            .create(
                PublicKeyCredentialCreationOptionsJSON(
                    rp: ceremonies.relyingPartyEntity, user: PasskeyCeremonies.userEntity(of: user), challenge: Base64URL.encode(challenge),
                    pubKeyCredParams: ceremonies.relyingParty.algorithms.map { PasskeyCredentialParameters(alg: $0.rawValue) },
                    timeout: timeout, excludeCredentials: excluded.isEmpty ? nil : excluded,
                    authenticatorSelection: .init(residentKey: "discouraged", requireResidentKey: false, userVerification: "preferred"),
                    attestation: "none")))
    }
}
