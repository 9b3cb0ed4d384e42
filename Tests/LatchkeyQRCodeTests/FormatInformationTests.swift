import Testing

@testable import LatchkeyQRCode

@Suite("Format and version information")
struct FormatInformationTests {
    /// ISO/IEC 18004 annex C, table C.1: the 15 format bits after the XOR mask, most
    /// significant first, by level and mask pattern 0…7.
    static let formatTable: [(QRCode.ErrorCorrection, [String])] = [
        (
            .low,
            [
                "111011111000100", "111001011110011", "111110110101010", "111100010011101",
                "110011000101111", "110001100011000", "110110001000001", "110100101110110",
            ]
        ),
        (
            .medium,
            [
                "101010000010010", "101000100100101", "101111001111100", "101101101001011",
                "100010111111001", "100000011001110", "100111110010111", "100101010100000",
            ]
        ),
        (
            .quartile,
            [
                "011010101011111", "011000001101000", "011111100110001", "011101000000110",
                "010010010110100", "010000110000011", "010111011011010", "010101111101101",
            ]
        ),
        (
            .high,
            [
                "001011010001001", "001001110111110", "001110011100111", "001100111010000",
                "000011101100010", "000001001010101", "000110100001100", "000100000111011",
            ]
        ),
    ]

    /// ISO/IEC 18004 annex D, table D.1: the 18 version bits of versions 7…40.
    static let versionTable: [Int] = [
        0x07C94, 0x085BC, 0x09A99, 0x0A4D3, 0x0BBF6, 0x0C762, 0x0D847, 0x0E60D, 0x0F928, 0x10B78,
        0x1145D, 0x12A17, 0x13532, 0x149A6, 0x15683, 0x168C9, 0x177EC, 0x18EC4, 0x191E1, 0x1AFAB,
        0x1B08E, 0x1CC1A, 0x1D33F, 0x1ED75, 0x1F250, 0x209D5, 0x216F0, 0x228BA, 0x2379F, 0x24B0B,
        0x2542E, 0x26A64, 0x27541, 0x28C69,
    ]

    @Test("Format bits for every level and mask match the standard's table")
    func formatBits() {
        for (level, row) in Self.formatTable {
            for (mask, bits) in row.enumerated() {
                #expect(ModuleGrid.formatBits(correction: level, mask: mask) == Int(bits, radix: 2), "\(level) mask \(mask)")
            }
        }
    }

    @Test("Version bits for versions 7 to 40 match the standard's table")
    func versionBits() {
        for (offset, bits) in Self.versionTable.enumerated() {
            #expect(ModuleGrid.versionBits(version: 7 + offset) == bits, "version \(7 + offset)")
        }
    }

    @Test("Both copies of the format information in a symbol read back as the level and mask")
    func formatInSymbol() throws {
        for level in QRCode.ErrorCorrection.allCases {
            let code = try QRCode("https://example.com/\(level)", correction: level)
            let n = code.size
            var first = 0
            var second = 0
            // Bit 14 first: row 8 from the left (skipping the timing column), then column 8 up.
            let firstPositions = (0...5).map { ($0, 8) } + [(7, 8), (8, 8), (8, 7)] + (0...5).reversed().map { (8, $0) }
            for (x, y) in firstPositions { first = first << 1 | (code[x, y] ? 1 : 0) }
            let secondPositions = (0...6).map { (8, n - 1 - $0) } + (0...7).map { (n - 8 + $0, 8) }
            for (x, y) in secondPositions { second = second << 1 | (code[x, y] ? 1 : 0) }
            let expected = ModuleGrid.formatBits(correction: level, mask: code.mask)
            #expect(first == expected)
            #expect(second == expected)
            #expect(code[8, n - 8], "the dark module")
        }
    }

    @Test("Version information sits in both 6 × 3 blocks, least significant bit at the corner nearest the origin")
    func versionInSymbol() throws {
        let code = try QRCode(String(repeating: "v", count: 200), correction: .medium)
        #expect(code.version == 10)
        let n = code.size
        var topRight = 0
        var bottomLeft = 0
        for index in (0..<18).reversed() {
            topRight = topRight << 1 | (code[n - 11 + index % 3, index / 3] ? 1 : 0)
            bottomLeft = bottomLeft << 1 | (code[index / 3, n - 11 + index % 3] ? 1 : 0)
        }
        #expect(topRight == 0x0A4D3)
        #expect(bottomLeft == 0x0A4D3)
    }
}
