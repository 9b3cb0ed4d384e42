import LatchkeyQRCode

/// The QR code of a TOTP factor's `otpauth://` URI, as the SVG document GoTrue sends in
/// `totp.qr_code` (clients prefix `data:image/svg+xml;utf-8,` themselves).
///
/// Like GoTrue, the code uses the highest error correction level (a scratched or partly
/// covered screen still scans) and 3 pixels per module.
enum FactorQRCode {
    /// The SVG for `uri`; empty when the URI is too long for any QR code (the secret and the
    /// URI in the same answer still let a user set up the authenticator by hand).
    static func svg(for uri: String) -> String {
        guard let code = try? QRCode(uri, correction: .high) else { return "" }
        return code.svg(moduleSize: 3)
    }
}
