import Foundation
import LatchkeyWire

/// `POST /factors`: enrolls a TOTP, phone or WebAuthn factor for the signed-in user, as GoTrue's
/// `EnrollFactor`.
///
/// The factor starts unverified; its first verified code (TOTP, phone) or its registration
/// ceremony (WebAuthn, run through `/factors/{id}/challenge` and `/verify`) makes it count. A
/// phone factor needs `phone` (E.164): a number the user already has as a verified phone factor
/// is refused (422 `mfa_verified_factor_exists`), an unverified factor of the same number is
/// replaced. Enrolling deletes the user's expired unverified factors first, then refuses a friendly name the user already uses
/// (422 `mfa_factor_name_conflict`), more than the configured number of factors (422
/// `too_many_enrolled_mfa_factors`), and, when the user has a verified factor, a session below
/// `aal2` (403 `insufficient_aal`). The secret is sealed before it is stored and shown once, in
/// this answer.
struct FactorEnrollment: Sendable {
    private let store: any AuthStore
    private let clock: any ServerClock
    private let rules: FactorRules
    private let secrets: FactorSecretBox
    /// The issuer shown in authenticator apps when the request names none: the host of the site URL.
    private let defaultIssuer: @Sendable () -> String

    init(store: any AuthStore, clock: any ServerClock, rules: FactorRules, secrets: FactorSecretBox, defaultIssuer: @escaping @Sendable () -> String)
    {
        self.store = store
        self.clock = clock
        self.rules = rules
        self.secrets = secrets
        self.defaultIssuer = defaultIssuer
    }

    func enroll(_ signedIn: BearerAuthentication.Authenticated, with body: EnrollFactorBody, ipAddress: String) async throws -> EnrollFactorResponse {
        let user = signedIn.user
        switch body.factor_type {
        case FactorRecord.totpType: guard rules.totpEnrollEnabled else { throw AuthError.totpEnrollDisabled }
        case FactorRecord.phoneType: guard rules.phoneEnrollEnabled else { throw AuthError.phoneFactorEnrollDisabled }
        case FactorRecord.webAuthnType: guard rules.webAuthnEnrollEnabled else { throw AuthError.webAuthnFactorEnrollDisabled }
        default: throw AuthError.invalidFactorType
        }
        let isWebAuthn = body.factor_type == FactorRecord.webAuthnType
        let isPhone = body.factor_type == FactorRecord.phoneType
        let phone: String? = isPhone ? try Self.phone(of: body) : nil
        let name = body.friendly_name ?? ""
        guard name.count <= 255 else { throw AuthError.validation("friendly_name is longer than 255 characters") }
        let issuer = (body.issuer?.isEmpty == false ? body.issuer : nil) ?? defaultIssuer()
        let now = clock.now()
        let secret = isWebAuthn || isPhone ? nil : TOTP.randomSecret()
        var factor = FactorRecord(
            userID: user.id, friendlyName: name, factorType: body.factor_type ?? FactorRecord.totpType, sealedSecret: "", createdAt: now,
            updatedAt: now, phone: phone)
        if let secret { factor.sealedSecret = try secrets.seal(secret, factorID: factor.id) }
        let audit = AuditEntry(
            action: .factorInProgress, actorID: user.id, actorUsername: user.email,
            traits: ["factor_id": .string(factor.id.lowercasedString)], ipAddress: ipAddress, createdAt: now)
        let rules = rules
        let outcome = try await store.changeFactors(of: user.id, challengeID: nil, sessionID: signedIn.session.id) { [factor] state in
            let samePhone = state.factors.filter { phone != nil && $0.factorType == FactorRecord.phoneType && $0.phone == phone }
            if samePhone.contains(where: \.isVerified) {
                return FactorPlan(changes: [], result: FactorOutcome<Bool>.failure(.verifiedPhoneFactorExists))
            }
            let replaced = Set(samePhone.map(\.id))
            let expired = state.factors.filter { replaced.contains($0.id) || rules.hasExpired($0, at: now) }
            let current = state.factors.filter { !replaced.contains($0.id) && !rules.hasExpired($0, at: now) }
            let verified = current.filter(\.isVerified).count
            let refusal: AuthError? =
                if current.contains(where: { $0.friendlyName == name }) {
                    .factorNameConflict(name)
                } else if current.count >= rules.maxEnrolledFactors || verified >= rules.maxVerifiedFactors {
                    .tooManyFactors
                } else if verified > 0, state.session?.aal != .aal2 {
                    .aal2RequiredToEnroll
                } else {
                    nil
                }
            let cleanup = expired.map { FactorChange.deleteFactor(id: $0.id) }
            if let refusal { return FactorPlan(changes: cleanup, result: FactorOutcome<Bool>.failure(refusal)) }
            return FactorPlan(changes: cleanup + [.insertFactor(factor), .audit(audit)], result: .success(true))
        }
        _ = try outcome.get()
        guard let secret else {
            return EnrollFactorResponse(id: factor.id.lowercasedString, type: factor.factorType, friendly_name: name, totp: nil, phone: body.phone)
        }
        let encodedSecret = Base32.encode(secret)
        let uri = TOTP.uri(secret: encodedSecret, issuer: issuer, account: user.email)
        return EnrollFactorResponse(
            id: factor.id.lowercasedString, type: factor.factorType, friendly_name: factor.friendlyName,
            totp: .init(qr_code: FactorQRCode.svg(for: uri), secret: encodedSecret, uri: uri))
    }

    /// A phone factor's number, normalised: 400 when it is missing or not E.164.
    private static func phone(of body: EnrollFactorBody) throws(AuthError) -> String {
        guard let raw = body.phone, !raw.isEmpty else { throw AuthError.phoneFactorPhoneRequired }
        return try InputRules.normalizedPhone(raw)
    }
}
