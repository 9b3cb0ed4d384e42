import Foundation

/// The parameters of the multi-factor rules and the checks every factor use case shares.
struct FactorRules: Sendable {
    var totpEnrollEnabled = true
    var totpVerifyEnabled = true
    var webAuthnEnrollEnabled = false
    var webAuthnVerifyEnabled = false
    /// Whether the relying party can run WebAuthn ceremonies (GoTrue starts without one; its
    /// WebAuthn factor challenges and verifications then fail).
    var webAuthnUsable = true
    var phoneEnrollEnabled = false
    var phoneVerifyEnabled = false
    /// Least seconds between two challenges of one phone factor.
    var phoneMaxFrequency: TimeInterval = 60
    var maxEnrolledFactors = ServerConfiguration.defaultMFAMaxEnrolledFactors
    var maxVerifiedFactors = ServerConfiguration.defaultMFAMaxVerifiedFactors
    var challengeExpiry = ServerConfiguration.defaultMFAChallengeExpiry
    var factorExpiry = ServerConfiguration.defaultMFAFactorExpiry

    init(_ configuration: ServerConfiguration) {
        totpEnrollEnabled = configuration.mfaTOTPEnrollEnabled
        totpVerifyEnabled = configuration.mfaTOTPVerifyEnabled
        webAuthnEnrollEnabled = configuration.mfaWebAuthnEnrollEnabled
        webAuthnVerifyEnabled = configuration.mfaWebAuthnVerifyEnabled
        webAuthnUsable = configuration.webAuthnUsable
        phoneEnrollEnabled = configuration.mfaPhoneEnrollEnabled
        phoneVerifyEnabled = configuration.mfaPhoneVerifyEnabled
        phoneMaxFrequency = configuration.mfaPhoneMaxFrequency
        maxEnrolledFactors = configuration.mfaMaxEnrolledFactors
        maxVerifiedFactors = configuration.mfaMaxVerifiedFactors
        challengeExpiry = configuration.mfaChallengeExpiry
        factorExpiry = configuration.mfaFactorExpiry
    }

    /// Whether an unverified factor has expired at `now`: enrolled more than ``factorExpiry`` ago
    /// and not challenged within ``challengeExpiry`` (its last challenge can no longer be verified).
    func hasExpired(_ factor: FactorRecord, at now: Date) -> Bool {
        guard !factor.isVerified, factor.createdAt.addingTimeInterval(factorExpiry) < now else { return false }
        guard let challenged = factor.lastChallengedAt else { return true }
        return challenged.addingTimeInterval(challengeExpiry) < now
    }

    /// When a challenge created at `createdAt` expires.
    func expiry(ofChallengeCreatedAt createdAt: Date) -> Date {
        createdAt.addingTimeInterval(challengeExpiry)
    }

    /// Refuses factors to anonymous users, as GoTrue's `requireNotAnonymous` on `/factors`.
    static func requireNotAnonymous(_ user: UserRecord) throws(AuthError) {
        if user.isAnonymous { throw AuthError.anonymousNotAllowed }
    }

    /// Refuses a challenge or verification of a factor whose type is turned off (GoTrue's
    /// `mfa_totp_verify_not_enabled`, `mfa_webauthn_verify_not_enabled`, `mfa_phone_verify_not_enabled`).
    func requireVerifyEnabled(for factor: FactorRecord) -> AuthError? {
        switch factor.factorType {
        case FactorRecord.webAuthnType: webAuthnVerifyEnabled ? nil : .webAuthnVerifyDisabled
        case FactorRecord.phoneType: phoneVerifyEnabled ? nil : .phoneFactorVerifyDisabled
        default: totpVerifyEnabled ? nil : .totpVerifyDisabled
        }
    }

    /// Refuses a WebAuthn factor's challenge or verification while the relying party is not
    /// usable: 500 `unexpected_failure`, as GoTrue's failing `webauthn.New`.
    func requireWebAuthnUsable(for factor: FactorRecord) -> AuthError? {
        factor.factorType == FactorRecord.webAuthnType && !webAuthnUsable ? .unexpected : nil
    }

    /// The factor of `factors` with `id`, or 404 `mfa_factor_not_found`.
    static func owned(_ id: UUID, in factors: [FactorRecord]) -> Result<FactorRecord, AuthError> {
        factors.first(where: { $0.id == id }).map { .success($0) } ?? .failure(.factorNotFound)
    }
}

/// A factor use case's answer out of a store transaction: the value, or the error to throw
/// once the transaction's changes (an audit entry, a deleted challenge) are written.
typealias FactorOutcome<Value: Sendable> = Result<Value, AuthError>

extension FactorRules {
    /// The issuer authenticator apps show when enrolment names none: the host (and port) of
    /// the site URL, as GoTrue.
    static func issuer(siteURL: String) -> String {
        guard let components = URLComponents(string: siteURL), let host = components.host, !host.isEmpty else { return siteURL }
        return components.port.map { "\(host):\($0)" } ?? host
    }
}
