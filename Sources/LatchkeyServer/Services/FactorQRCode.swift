/// The QR code of a TOTP factor's `otpauth://` URI, as the SVG document GoTrue sends in
/// `totp.qr_code` (clients prefix `data:image/svg+xml;utf-8,` themselves).
enum FactorQRCode {
    /// The SVG for `uri`; empty when no QR code can be drawn (the secret and the URI in the
    /// same answer still let a user set up the authenticator by hand).
    static func svg(for uri: String) -> String {
        // The QR encoder (LatchkeyQRCode) is not part of this build yet.
        ""
    }
}
