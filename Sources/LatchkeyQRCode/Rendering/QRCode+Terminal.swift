extension QRCode {
    /// How ``terminalText(quietZone:style:)`` draws the symbol.
    public enum TerminalStyle: Sendable, Hashable {
        /// Black modules on a white ground, set with ANSI colour escapes (256-colour palette
        /// entries 16 and 231, which colour themes leave alone). Scans on dark and light
        /// terminals alike, because it does not depend on the terminal's own colours.
        case ansiColors
        /// Plain text with the light modules (and the quiet zone) drawn as blocks in the
        /// terminal's text colour: dark-on-light on a terminal with light text on a dark
        /// background, inverted on a light one.
        case lightModulesAsBlocks
        /// Plain text with the dark modules drawn as blocks: dark-on-light on a terminal with
        /// dark text on a light background (or on paper), inverted on a dark one.
        case darkModulesAsBlocks
    }

    /// The symbol for a terminal, two module rows per line with the half-block characters
    /// `▀`, `▄`, `█` and space, in ``TerminalStyle/ansiColors``.
    ///
    /// Phone cameras and authenticator apps read dark modules on a light ground; not every
    /// scanner reads the inverted form. Drawing blocks in the terminal's text colour (or with
    /// reverse video, which swaps the theme's two colours) comes out inverted on one kind of
    /// theme or the other, so this draws black on white with explicit colours, which reads the
    /// same on both. Each line resets the colours before its line break. For output that is
    /// not a terminal, use ``terminalText(quietZone:style:)`` with a plain style.
    ///
    /// - Parameter quietZone: The light margin in modules (the standard asks for 4; phones read
    ///   a code on a screen with 2).
    public func terminalText(quietZone: Int = 2) -> String {
        terminalText(quietZone: quietZone, style: .ansiColors)
    }

    /// The symbol for a terminal, two module rows per line with `▀`, `▄`, `█` and space, drawn
    /// as `style` says. The line count is half the rows, rounded up; in the last line of an
    /// odd count the lower half is outside the symbol and its quiet zone.
    public func terminalText(quietZone: Int, style: TerminalStyle) -> String {
        let margin = max(quietZone, 0)
        let side = size + 2 * margin
        // Whether a half-cell shows a block: a module of the drawn colour. Rows beyond the
        // bottom (the odd last half line) are never drawn; in the coloured style they take the
        // white ground, which extends the quiet zone.
        func drawn(_ x: Int, _ y: Int) -> Bool {
            guard y < side else { return false }
            let dark = self[x - margin, y - margin]
            return style == .lightModulesAsBlocks ? !dark : dark
        }
        let begin = style == .ansiColors ? "\u{1B}[38;5;16;48;5;231m" : ""
        let end = style == .ansiColors ? "\u{1B}[0m" : ""
        var text = ""
        text.reserveCapacity((side + begin.utf8.count + end.utf8.count + 1) * (side / 2 + 1) * 3)
        for y in stride(from: 0, to: side, by: 2) {
            text += begin
            for x in 0..<side {
                switch (drawn(x, y), drawn(x, y + 1)) {
                case (true, true): text += "█"
                case (true, false): text += "▀"
                case (false, true): text += "▄"
                case (false, false): text += " "
                }
            }
            text += end
            text += "\n"
        }
        return text
    }
}
