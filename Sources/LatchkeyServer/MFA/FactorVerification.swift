import Foundation
import LatchkeyWire
import Logging

/// `POST /factors/{id}/verify`: checks a TOTP code (or a phone factor's code, see
/// `FactorVerification+Phone.swift`, or a WebAuthn response, see
/// `FactorVerification+WebAuthn.swift`) against a challenge of the signed-in user's factor and
/// raises the session to `aal2` (GoTrue's `VerifyFactor`).
///
/// - The challenge must belong to the factor (422 `mfa_factor_not_found`), come from the same
///   address and not be verified yet (422 `mfa_ip_address_mismatch`), and not be expired (422
///   `mfa_challenge_expired`; the challenge is deleted).
/// - The code must be the factor's for the current 30-second step or one either side, and of a
///   later step than any code the factor accepted before: a code works once. Otherwise 422
///   `mfa_verification_failed`, audited, and counted against the factor: past the limit every
///   code for the factor is refused (429) until the window passes.
/// - On success the factor is verified, the session becomes `aal2` with `totp` in its `amr`, and
///   gets a new refresh token (the one it had can no longer renew it); the user's other `aal1`
///   sessions end and their other unverified TOTP factors are deleted, as in GoTrue.
struct FactorVerification: ServiceDependent {
    let shared: ServiceDependencies
    let rules: FactorRules
    let secrets: FactorSecretBox
    let relyingParty: RelyingParty
    /// A phone factor's codes; `nil` while phone factors cannot be verified.
    let phone: PhoneFactorMessages?
    /// The MFA verification attempt hook, when it is on.
    var attemptHook: VerificationAttemptHook? = nil

    /// What a successful verification leaves: the raised session and its new refresh token.
    struct Verified: Sendable {
        var session: SessionRecord
        var refreshToken: String
        /// The factor's type when this was its first verification (its enrolment completed).
        var enrolledFactorType: String? = nil
    }

    func verify(
        _ factorID: UUID, with body: VerifyFactorBody, by signedIn: BearerAuthentication.Authenticated, ipAddress: String
    ) async throws -> SessionResponse {
        let user = signedIn.user
        // A code without WebAuthn parameters is a TOTP verification (its plan refuses a WebAuthn
        // or phone factor) unless phone factors are on; otherwise the factor's type decides, as in GoTrue.
        if body.webauthn != nil || body.code?.isEmpty != false || phone != nil {
            guard let factor = try await store.factors(userID: user.id).first(where: { $0.id == factorID }) else {
                throw AuthError.factorNotFound
            }
            if factor.factorType == FactorRecord.webAuthnType {
                return try await verifyWebAuthn(factorID, with: body, by: signedIn, ipAddress: ipAddress)
            }
            if factor.factorType == FactorRecord.phoneType, let phone {
                return try await verifyPhone(factorID, with: body, by: signedIn, ipAddress: ipAddress, messages: phone)
            }
        }
        guard let code = body.code, !code.isEmpty else { throw AuthError.emptyFactorCode }
        guard rules.totpVerifyEnabled else { throw AuthError.totpVerifyDisabled }
        // GoTrue decodes challenge_id as a UUID: anything else cannot name a challenge.
        guard let challengeID = body.challenge_id.flatMap(UUID.init(uuidString:)) else { throw AuthError.challengeNotFound }
        try await limits.checkMFACodeAttempts(for: factorID)
        let (rules, secrets, sessionID) = (rules, secrets, signedIn.session.id)
        if let attemptHook {
            let opened = try await verdict(on: factorID, type: FactorRecord.totpType, challengeID: challengeID, by: signedIn, ipAddress: ipAddress) {
                factor, _, now in
                guard let secret = secrets.open(factor.sealedSecret, factorID: factor.id) else { return false }
                return Self.acceptedStep(of: code, by: factor, secret: secret, at: now) != nil
            }
            if let valid = opened {
                try await ask(attemptHook, valid: valid, factor: factorID, of: FactorRecord.totpType, user: user, ipAddress: ipAddress)
            }
        }

        return try await run(factorID, challengeID: challengeID, by: signedIn, counting: .invalidTOTPCode, "wrong code") { state, now, refreshToken in
            Self.plan(
                state, factorID: factorID, challengeID: challengeID, code: code, user: user, sessionID: sessionID, ipAddress: ipAddress,
                now: now, refreshToken: refreshToken, rules: rules, secrets: secrets)
        }
    }

    /// The verdict `judge` gives on the factor and its challenge, read in a transaction of their
    /// own before the MFA verification attempt hook is asked; `nil` when the challenge does not
    /// open (not the factor's, spent, from another address, expired, or the session gone): the
    /// verification itself then refuses it, and the hook is not asked, as in GoTrue.
    func verdict(
        on factorID: UUID, type: String, challengeID: UUID, by signedIn: BearerAuthentication.Authenticated, ipAddress: String,
        _ judge: @escaping @Sendable (FactorRecord, ChallengeRecord, Date) -> Bool
    ) async throws -> Bool? {
        let (user, rules, now) = (signedIn.user, rules, clock.now())
        return try await store.changeFactors(of: user.id, challengeID: challengeID, sessionID: signedIn.session.id) { state in
            guard
                case .success(let (factor, challenge, _)) = Self.openChallenge(
                    state, factorID: factorID, type: type, otherwise: .factorNotFound, user: user, ipAddress: ipAddress, now: now, rules: rules)
            else { return FactorPlan(changes: [], result: nil) }
            return FactorPlan(changes: [], result: judge(factor, challenge, now))
        }
    }

    /// Asks the MFA verification attempt hook about an attempt on the factor, `valid` as the
    /// verification judges it. A rejection ends every session of the user and is 403
    /// `mfa_verification_rejected` with the hook's message, as in GoTrue; a wrong code it
    /// rejects is still counted against the factor.
    func ask(
        _ hook: VerificationAttemptHook, valid: Bool, factor factorID: UUID, of type: String, user: UserRecord, ipAddress: String
    )
        async throws
    {
        let decision = try await hook.decide(
            userID: user.id, valid: valid, factor: VerificationAttemptHook.Factor(id: factorID, type: type), ipAddress: ipAddress)
        guard let rejection = decision else { return }
        if !valid { try await limits.recordFailedMFACode(for: factorID) }
        _ = try await store.endSessions(userID: user.id, except: nil, only: nil, audit: nil)
        logger.info(
            "factor verification refused by the MFA verification attempt hook", metadata: ["user_id": "\(user.id)", "factor_id": "\(factorID)"])
        throw AuthError.mfaAttemptRejected(rejection.message)
    }

    /// The time step `code` matches for a TOTP factor, when it is later than the last one
    /// accepted (an earlier or the same step is a replay); `nil` for a wrong code.
    static func acceptedStep(of code: String, by factor: FactorRecord, secret: [UInt8], at now: Date) -> Int64? {
        guard let step = TOTP.matchingStep(of: code, secret: secret, at: now), step > (factor.lastUsedStep ?? .min) else { return nil }
        return step
    }

    /// Runs a verification's plan in the store and answers its outcome: the raised session, or
    /// the refusal, a `counted` one (a wrong code or response) counted against the factor.
    func run(
        _ factorID: UUID, challengeID: UUID, by signedIn: BearerAuthentication.Authenticated, counting counted: AuthError, _ what: String,
        plan: @escaping @Sendable (FactorState, Date, String) -> FactorPlan<FactorOutcome<Verified>>
    ) async throws -> SessionResponse {
        let (user, sessionID) = (signedIn.user, signedIn.session.id)
        let now = clock.now()
        let refreshToken = OpaqueTokens.random()
        let outcome = try await store.changeFactors(of: user.id, challengeID: challengeID, sessionID: sessionID) { state in
            plan(state, now, refreshToken)
        }
        switch outcome {
        case .success(let verified):
            logger.info("factor verified", metadata: ["user_id": "\(user.id)", "session_id": "\(sessionID)", "factor_id": "\(factorID)"])
            if let factorType = verified.enrolledFactorType { notices.send(.factorEnrolled(factorType: factorType), about: user) }
            return try await sessions.response(
                user: user, session: verified.session, refreshToken: verified.refreshToken,
                authenticationMethod: verified.session.authenticationMethods.first?.method ?? "totp")
        case .failure(let error):
            if error == counted {
                try await limits.recordFailedMFACode(for: factorID)
                logger.info("factor verification refused: \(what)", metadata: ["user_id": "\(user.id)", "factor_id": "\(factorID)"])
            }
            throw error
        }
    }

    /// The decision for one code, and the changes that carry it out: a pure function of the state.
    private static func plan(
        _ state: FactorState, factorID: UUID, challengeID: UUID, code: String, user: UserRecord, sessionID: UUID, ipAddress: String,
        now: Date, refreshToken: String, rules: FactorRules, secrets: FactorSecretBox
    ) -> FactorPlan<FactorOutcome<Verified>> {
        func refuse(_ error: AuthError, _ changes: [FactorChange] = []) -> FactorPlan<FactorOutcome<Verified>> {
            FactorPlan(changes: changes, result: .failure(error))
        }
        let isPhone = state.factors.contains { $0.id == factorID && $0.factorType == FactorRecord.phoneType }
        let opened = Self.openChallenge(
            state, factorID: factorID, type: FactorRecord.totpType, otherwise: isPhone ? .phoneFactorVerifyDisabled : .webAuthnParamsRequired,
            user: user, ipAddress: ipAddress,
            now: now, rules: rules)
        guard case .success(let (found, challenge, session)) = opened else {
            guard case .failure(let refusal) = opened else { return refuse(.unexpected) }
            return refuse(refusal.error, refusal.changes)
        }
        var factor = found
        guard let secret = secrets.open(factor.sealedSecret, factorID: factor.id) else { return refuse(.unexpected) }
        var traits: [String: JSONValue] = [
            "factor_id": .string(factor.id.lowercasedString), "challenge_id": .string(challenge.id.lowercasedString),
            "factor_type": .string(factor.factorType),
        ]
        // A step at or before the last accepted one is a replay (or an older code): refused like a wrong code.
        guard let step = Self.acceptedStep(of: code, by: factor, secret: secret, at: now) else {
            traits["error_code"] = .string(AuthError.invalidTOTPCode.code)
            return refuse(.invalidTOTPCode, [.audit(audit(user, traits: traits, ipAddress: ipAddress, now: now))])
        }

        factor.lastUsedStep = step
        return success(
            factor: factor, method: "totp", session: session, challenge: challenge, state: state, user: user, traits: traits,
            ipAddress: ipAddress, now: now, refreshToken: refreshToken)
    }

    /// Why a verification stops before its code or response is looked at, and what that still
    /// changes (an expired challenge is deleted).
    struct Refusal: Error {
        var error: AuthError
        var changes: [FactorChange] = []
    }

    /// The checks every verification makes first, in GoTrue's order: the factor is the user's
    /// and of `type` (else `otherwise`), the challenge is the factor's, unspent, from the same
    /// address and not expired, and the session still exists.
    static func openChallenge(
        _ state: FactorState, factorID: UUID, type: String, otherwise: AuthError, user: UserRecord, ipAddress: String, now: Date,
        rules: FactorRules
    ) -> Result<(FactorRecord, ChallengeRecord, SessionRecord), Refusal> {
        guard case .success(let factor) = FactorRules.owned(factorID, in: state.factors) else { return .failure(Refusal(error: .factorNotFound)) }
        guard factor.factorType == type else { return .failure(Refusal(error: otherwise)) }
        guard let challenge = state.challenge, challenge.factorID == factor.id else { return .failure(Refusal(error: .challengeNotFound)) }
        guard challenge.verifiedAt == nil, challenge.ipAddress == ipAddress else { return .failure(Refusal(error: .challengeIPMismatch)) }
        guard now <= rules.expiry(ofChallengeCreatedAt: challenge.createdAt) else {
            return .failure(Refusal(error: .challengeExpired(challenge.id.lowercasedString), changes: [.deleteChallenge(id: challenge.id)]))
        }
        guard let session = state.session, session.userID == user.id else { return .failure(Refusal(error: .sessionGone)) }
        return .success((factor, challenge, session))
    }

    /// The changes of a verification that succeeded: the factor verified, the session raised to
    /// `aal2` with `method` in its `amr` and a new refresh token, the challenge spent, the user's
    /// other `aal1` sessions ended and their other unverified factors of the type deleted.
    static func success(
        factor: FactorRecord, method: String, session: SessionRecord, challenge: ChallengeRecord, state: FactorState, user: UserRecord,
        traits: [String: JSONValue], ipAddress: String, now: Date, refreshToken: String
    ) -> FactorPlan<FactorOutcome<Verified>> {
        var (factor, session) = (factor, session)
        let enrolledFactorType = factor.isVerified ? nil : factor.factorType
        factor.status = .verified
        factor.updatedAt = now
        session.aal = .aal2
        session.factorID = factor.id
        session.verifiedMethods =
            session.verifiedMethods.filter { $0.method != method }
            + [AuthenticationMethodReference(method: method, timestamp: Int(now.timeIntervalSince1970))]
        session.updatedAt = now
        let token = RefreshTokenRecord(hash: OpaqueTokens.hash(refreshToken), of: session, parentHash: nil, createdAt: now)
        let otherUnverified = state.factors.filter { $0.id != factor.id && !$0.isVerified && $0.factorType == factor.factorType }
        let changes: [FactorChange] =
            [
                .audit(audit(user, traits: traits, ipAddress: ipAddress, now: now)),
                .markChallengeVerified(id: challenge.id, at: now),
                .updateFactor(factor),
                .updateSessionAssurance(session),
                .replaceRefreshToken(token),
                .endLowerAssuranceSessions(userID: user.id, except: session.id),
            ] + otherUnverified.map { .deleteFactor(id: $0.id) }
        return FactorPlan(
            changes: changes, result: .success(Verified(session: session, refreshToken: refreshToken, enrolledFactorType: enrolledFactorType)))
    }

    /// GoTrue's `verification_attempted` entry, in the `factor` log.
    static func audit(_ user: UserRecord, traits: [String: JSONValue], ipAddress: String, now: Date) -> AuditEntry {
        var entry = AuditEntry(
            action: .verificationAttempted, actorID: user.id, actorUsername: user.email, traits: traits, ipAddress: ipAddress, createdAt: now)
        entry.logType = "factor"
        return entry
    }
}
