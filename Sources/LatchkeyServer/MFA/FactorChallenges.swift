import Foundation
import LatchkeyWire

/// `POST /factors/{id}/challenge`: opens a challenge of one of the signed-in user's factors, to
/// be verified from the same address before it expires (GoTrue's `ChallengeFactor`).
///
/// A TOTP challenge waits for a code. A phone challenge sends one by SMS (or WhatsApp,
/// `channel`) to the factor's number, at most once per `GOTRUE_MFA_PHONE_MAX_FREQUENCY` per
/// factor (429 `over_sms_send_rate_limit`), and stores only its hash. A WebAuthn challenge carries the ceremony to run: for an
/// unverified factor, registration options (`create`) that exclude the credentials the user
/// already has as factors or passkeys, so one authenticator is not enrolled twice; for a
/// verified one, request options (`request`) that allow only the factor's own credential.
struct FactorChallenges: ServiceDependent {
    let shared: ServiceDependencies
    let rules: FactorRules
    let ceremonies: PasskeyCeremonies
    /// A phone factor's codes; `nil` while phone factors cannot be verified.
    let phone: PhoneFactorMessages?

    private struct Opened: Sendable {
        var factor: FactorRecord
        var otherCredentials: [FactorCredential]
        /// When the factor was challenged before this challenge.
        var previouslyChallengedAt: Date?
    }

    func challenge(
        _ factorID: UUID, with body: ChallengeFactorBody, by signedIn: BearerAuthentication.Authenticated, ipAddress: String
    ) async throws -> ChallengeFactorResponse {
        let user = signedIn.user
        let now = clock.now()
        let random = PasskeyCeremonies.randomChallenge()
        let rules = rules
        let challengeID = UUID()
        // Made before the transaction, used only if the factor is a phone.
        let code = phone?.newCode()
        let codeHash = code.flatMap { phone?.hash($0, challengeID: challengeID) }
        let channel = Result { () throws(AuthError) in try PhoneCodes.channel(body.channel) }
        let outcome = try await store.changeFactors(of: user.id, challengeID: nil, sessionID: nil) { state in
            switch FactorRules.owned(factorID, in: state.factors) {
            case .failure(let error):
                return FactorPlan(changes: [], result: FactorOutcome<Opened>.failure(error))
            case .success(var factor):
                if let refusal = rules.requireVerifyEnabled(for: factor) ?? rules.requireWebAuthnUsable(for: factor)
                    ?? Self.phoneRefusal(factor, channel: channel, rules: rules, now: now)
                {
                    return FactorPlan(changes: [], result: .failure(refusal))
                }
                let webAuthn =
                    factor.factorType == FactorRecord.webAuthnType
                    ? FactorWebAuthnChallenge(ceremony: factor.isVerified ? .request : .create, challenge: random) : nil
                let challenge = ChallengeRecord(
                    id: challengeID, factorID: factorID, createdAt: now, ipAddress: ipAddress, webAuthn: webAuthn,
                    codeHash: factor.factorType == FactorRecord.phoneType ? codeHash : nil)
                let previouslyChallengedAt = factor.lastChallengedAt
                factor.lastChallengedAt = now
                let audit = AuditEntry(
                    action: .challengeCreated, actorID: user.id, actorUsername: user.email,
                    traits: ["factor_id": .string(factor.id.lowercasedString), "factor_status": .string(factor.status.rawValue)],
                    ipAddress: ipAddress, createdAt: now)
                let others = state.factors.filter { $0.id != factor.id }.compactMap(\.webAuthnCredential)
                return FactorPlan(
                    changes: [.insertChallenge(challenge), .updateFactor(factor), .audit(audit)],
                    result: .success(Opened(factor: factor, otherCredentials: others, previouslyChallengedAt: previouslyChallengedAt)))
            }
        }
        let opened = try outcome.get()
        if opened.factor.factorType == FactorRecord.phoneType, let phone, let code, let number = opened.factor.phone {
            do {
                try await phone.send(code, to: number, channel: (try? channel.get()) ?? .sms, factorID: factorID, user: user)
            } catch {
                try await withdraw(challengeID, of: opened, userID: user.id, at: now)
                throw error
            }
        }
        let expiresAt = rules.expiry(ofChallengeCreatedAt: now)
        var response = ChallengeFactorResponse(
            id: challengeID.lowercasedString, type: opened.factor.factorType, expires_at: Int(expiresAt.timeIntervalSince1970))
        if opened.factor.factorType == FactorRecord.webAuthnType {
            response.webauthn = try await webAuthnOptions(for: opened, user: user, challenge: random)
        }
        return response
    }

    /// Why a phone factor cannot be challenged now: a channel that is not `sms` or `whatsapp`
    /// (400), or a challenge less than the maximum frequency ago (429).
    private static func phoneRefusal(
        _ factor: FactorRecord, channel: Result<SMSMessage.Channel, AuthError>, rules: FactorRules, now: Date
    )
        -> AuthError?
    {
        guard factor.factorType == FactorRecord.phoneType else { return nil }
        if case .failure(let error) = channel { return error }
        guard let last = factor.lastChallengedAt, now < last.addingTimeInterval(rules.phoneMaxFrequency) else { return nil }
        return .smsTooSoon(retryAfter: max(1, Int(last.addingTimeInterval(rules.phoneMaxFrequency).timeIntervalSince(now).rounded(.up))))
    }

    /// Takes back a phone challenge whose code could not be sent: the challenge is deleted and
    /// the factor's last challenge is the one before, so the user may ask again at once.
    private func withdraw(_ challengeID: UUID, of opened: Opened, userID: UUID, at now: Date) async throws {
        _ = try await store.changeFactors(of: userID, challengeID: nil, sessionID: nil) { state in
            guard var factor = state.factors.first(where: { $0.id == opened.factor.id }), let last = factor.lastChallengedAt,
                abs(last.timeIntervalSince(now)) < 0.001
            else {
                return FactorPlan(changes: [.deleteChallenge(id: challengeID)], result: true)
            }
            factor.lastChallengedAt = opened.previouslyChallengedAt
            return FactorPlan(changes: [.deleteChallenge(id: challengeID), .updateFactor(factor)], result: true)
        }
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
