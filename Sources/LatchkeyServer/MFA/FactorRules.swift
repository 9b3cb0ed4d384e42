import Foundation

/// The multi-factor rules (``MFASettings``, read through: `rules.totpEnrollEnabled`) and the
/// checks every factor use case shares.
@dynamicMemberLookup
struct FactorRules: Sendable {
    var settings = MFASettings()
    /// Whether the relying party can run WebAuthn ceremonies (GoTrue starts without one; its
    /// WebAuthn factor challenges and verifications then fail).
    var webAuthnUsable = true

    init(_ configuration: ServerConfiguration) {
        settings = configuration.mfa
        webAuthnUsable = configuration.webAuthnUsable
    }

    subscript<Value>(dynamicMember keyPath: KeyPath<MFASettings, Value>) -> Value { settings[keyPath: keyPath] }

    /// Whether an unverified factor has expired at `now`: enrolled more than ``MFASettings/factorExpiry`` ago
    /// and not challenged within ``MFASettings/challengeExpiry`` (its last challenge can no longer be verified).
    func hasExpired(_ factor: FactorRecord, at now: Date) -> Bool {
        guard !factor.isVerified, factor.createdAt.addingTimeInterval(settings.factorExpiry) < now else { return false }
        guard let challenged = factor.lastChallengedAt else { return true }
        return challenged.addingTimeInterval(settings.challengeExpiry) < now
    }

    /// When a challenge created at `createdAt` expires.
    func expiry(ofChallengeCreatedAt createdAt: Date) -> Date {
        createdAt.addingTimeInterval(settings.challengeExpiry)
    }

    /// Refuses factors to anonymous users, as GoTrue's `requireNotAnonymous` on `/factors`.
    static func requireNotAnonymous(_ user: UserRecord) throws(AuthError) {
        if user.isAnonymous { throw AuthError.anonymousNotAllowed }
    }

    /// Refuses a challenge or verification of a factor whose type is turned off (GoTrue's
    /// `mfa_totp_verify_not_enabled`, `mfa_webauthn_verify_not_enabled`, `mfa_phone_verify_not_enabled`).
    func requireVerifyEnabled(for factor: FactorRecord) -> AuthError? {
        switch factor.factorType {
        case FactorRecord.webAuthnType: settings.webAuthnVerifyEnabled ? nil : .webAuthnVerifyDisabled
        case FactorRecord.phoneType: settings.phoneVerifyEnabled ? nil : .phoneFactorVerifyDisabled
        default: settings.totpVerifyEnabled ? nil : .totpVerifyDisabled
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
