extension QRCode {
    /// The error correction level: the share of the symbol's codewords that can be restored.
    public enum ErrorCorrection: Sendable, Hashable, CaseIterable {
        /// About 7 % of the codewords can be restored (level L).
        case low
        /// About 15 % (level M): the usual choice for codes shown on a screen.
        case medium
        /// About 25 % (level Q).
        case quartile
        /// About 30 % (level H).
        case high
    }
}

extension QRCode.ErrorCorrection {
    /// The row of the capacity tables: L, M, Q, H.
    var tableIndex: Int {
        switch self {
        case .low: 0
        case .medium: 1
        case .quartile: 2
        case .high: 3
        }
    }

    /// The two bits the format information carries for this level (ISO/IEC 18004 table 12):
    /// L = 01, M = 00, Q = 11, H = 10.
    var formatBits: Int {
        switch self {
        case .low: 0b01
        case .medium: 0b00
        case .quartile: 0b11
        case .high: 0b10
        }
    }
}
