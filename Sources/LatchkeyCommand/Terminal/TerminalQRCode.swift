import LatchkeyQRCode

/// A QR code of an `otpauth://` URI for an authenticator app to scan off the screen
/// (`mfa enroll`).
enum TerminalQRCode {
    /// The QR code as lines to print, black on white with explicit colours so it scans on dark
    /// and light themes alike; `nil` when stdout is not a terminal (a script reads the URI and
    /// the secret instead) or the text does not fit a QR code.
    static func render(_ text: String, terminal: Terminal) -> String? {
        guard terminal.outputIsTerminal, let code = try? QRCode(text, correction: .medium) else { return nil }
        let drawn = code.terminalText()
        return drawn.hasSuffix("\n") ? String(drawn.dropLast()) : drawn
    }
}
