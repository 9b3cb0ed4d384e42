import Foundation

/// Text from elsewhere (a name a client chose, a stored URI) made safe to print on a terminal.
enum TerminalText {
    /// `text` with every control character (escape sequences, newlines, carriage returns) and
    /// every bidirectional override or isolate shown as `?`, so it cannot move the cursor,
    /// recolour the terminal, reorder what follows or forge lines of output.
    static func printable(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(isUnsafe(scalar) ? "?" : scalar)
        }
        return String(scalars)
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }
}
