import Crypto

/// A WebAuthn relying party's settings (`GOTRUE_WEBAUTHN_RP_ID`, `_RP_ORIGINS`), and the
/// ceremonies' verification (WebAuthn Level 3 §7.1 and §7.2) in its extensions.
package struct RelyingParty: Sendable {
    /// The RP ID: a registrable domain suffix of the origins (`example.com`).
    package var id: String
    /// The exact origins ceremonies may run on (`https://example.com`, an app's `android:apk-key-hash:…`).
    package var origins: Set<String>
    /// The top-level origins allowed to embed a ceremony in a cross-origin iframe; empty (the
    /// default) refuses cross-origin ceremonies.
    package var topOrigins: Set<String>
    /// The credential algorithms accepted, in the order offered.
    package var algorithms: [COSEAlgorithm]

    package init(
        id: String, origins: Set<String>, topOrigins: Set<String> = [], algorithms: [COSEAlgorithm] = COSEAlgorithm.preferred
    ) {
        self.id = id
        self.origins = origins
        self.topOrigins = topOrigins
        self.algorithms = algorithms
    }

    /// SHA-256 of the RP ID, as authenticator data carries it.
    package var idHash: [UInt8] { Array(SHA256.hash(data: Array(id.utf8))) }

    /// The flag checks both ceremonies share (§7.1 steps 14-17, §7.2 steps 16-19): rpIdHash, UP,
    /// UV when required, and BS only with BE.
    func verifyCommon(_ data: AuthenticatorData, requireUserVerification: Bool) throws(WebAuthnError) {
        guard constantTimeEquals(data.rpIDHash, idHash) else { throw .rpIDHashMismatch }
        guard data.flags.contains(.userPresent) else { throw .userNotPresent }
        if requireUserVerification, !data.flags.contains(.userVerified) { throw .userNotVerified }
        if data.flags.contains(.backedUp), !data.flags.contains(.backupEligible) { throw .backupStateWithoutEligibility }
    }
}
