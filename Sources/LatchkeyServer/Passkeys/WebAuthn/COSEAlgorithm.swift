/// The COSE signature algorithms (RFC 9053, IANA "COSE Algorithms") a credential may use here.
package enum COSEAlgorithm: Int, CaseIterable, Hashable, Sendable {
    /// ECDSA with SHA-256 on P-256. WebAuthn's signatures are DER-encoded (§6.5.5).
    case es256 = -7
    /// EdDSA; with an OKP key, Ed25519.
    case edDSA = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256, keys of 2048 bits or more.
    case rs256 = -257

    /// The order the server offers them in `pubKeyCredParams`: ES256 first, as every platform
    /// authenticator has it.
    static let preferred: [COSEAlgorithm] = [.es256, .edDSA, .rs256]
}
