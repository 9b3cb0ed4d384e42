import Testing

@testable import LatchkeyQRCode

@Suite("Masks and the penalty score")
struct MaskingTests {
    static func line(_ pattern: String) -> [Bool] { pattern.map { $0 == "1" } }

    static func score(_ pattern: String) -> Int {
        PenaltyScore.lineScore(line(pattern))
    }

    @Test("Rule 1: 3 for a run of five, one more per module beyond")
    func runs() {
        #expect(Self.score("0101010101") == 0)
        #expect(Self.score("1111101010") == 3)
        #expect(Self.score("1111111010") == 5)
        #expect(Self.score("0000011111") == 6)
    }

    @Test("Rule 3: 1:1:3:1:1 with four light modules on one side, the quiet zone counting as light")
    func finderLike() {
        #expect(Self.score("1010000101110101") == 40)  // light before
        #expect(Self.score("1101011101000011") == 40)  // light after
        #expect(Self.score("1101011101011011") == 0)  // light on neither side
        #expect(Self.score("1011101011") == 40)  // at the start of the line: the quiet zone before
        #expect(Self.score("1101011101000") == 40)  // light after, up to the end of the line
        #expect(Self.score("1101011101") == 40)  // at the end of the line: the quiet zone after
        #expect(Self.score("00110011111100110000") == 40 + 4)  // unit 2 (11 00 111111 00 11), and a run of 6
    }

    /// Rule 4's score for `percent` dark modules out of 100.
    static func balance(_ percent: Int) -> Int {
        (0..<100).map { $0 < percent }.withUnsafeBufferPointer { PenaltyScore.balanceScore($0) }
    }

    @Test("Rules 2 and 4")
    func blocksAndBalance() {
        // 3 × 3 all dark: four 2 × 2 blocks; 100 % dark is 10 steps of 5 % from 50 %.
        Array(repeating: true, count: 9).withUnsafeBufferPointer { symbol in
            #expect(PenaltyScore.blockScore(symbol, size: 3) == 12)
            #expect(PenaltyScore.balanceScore(symbol) == 100)
        }
        // 45 % to 55 % dark: 0; 40 %: 10 (exact steps count); 44 %: 10.
        #expect(Self.balance(50) == 0)
        #expect(Self.balance(54) == 0)
        #expect(Self.balance(45) == 10)
        #expect(Self.balance(44) == 10)
        #expect(Self.balance(40) == 20)
    }

    @Test("Mask conditions: ISO/IEC 18004 table 10, checked at a few modules")
    func maskConditions() {
        // (row, column) → inverted, for patterns 0…7.
        #expect(MaskPattern(0).inverts(row: 1, column: 1) && !MaskPattern(0).inverts(row: 1, column: 2))
        #expect(MaskPattern(1).inverts(row: 2, column: 5) && !MaskPattern(1).inverts(row: 3, column: 0))
        #expect(MaskPattern(2).inverts(row: 5, column: 3) && !MaskPattern(2).inverts(row: 0, column: 1))
        #expect(MaskPattern(3).inverts(row: 1, column: 2) && !MaskPattern(3).inverts(row: 1, column: 1))
        #expect(MaskPattern(4).inverts(row: 1, column: 2) && !MaskPattern(4).inverts(row: 2, column: 0))
        #expect(MaskPattern(5).inverts(row: 6, column: 1) && !MaskPattern(5).inverts(row: 1, column: 1))
        #expect(MaskPattern(6).inverts(row: 1, column: 1) && !MaskPattern(6).inverts(row: 1, column: 3))
        #expect(MaskPattern(7).inverts(row: 0, column: 0) && !MaskPattern(7).inverts(row: 1, column: 0))
    }

    @Test("The residue form the encoder applies agrees with table 10's formulas over a version 40 symbol")
    func residuesAgree() {
        for reference in 0...7 {
            let mask = MaskPattern(reference)
            var mismatches = 0
            for i in 0..<177 {
                let row = MaskPattern.Residues(i)
                var column = MaskPattern.Residues(0)
                for j in 0..<177 {
                    if mask.inverts(row, column) != mask.inverts(row: i, column: j) { mismatches += 1 }
                    column.advance()
                }
            }
            #expect(mismatches == 0, "mask \(reference)")
        }
    }

    @Test("The chosen mask has the lowest penalty of the eight; every mask changes only data modules")
    func chosenMaskIsLowest() throws {
        let bytes = Array("otpauth://totp/Latchkey:ada@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Latchkey".utf8)
        let chosen = try QRCode(bytes: bytes, correction: .medium, mask: nil)
        var scores: [Int] = []
        var symbols: [QRCode] = []
        for mask in 0...7 {
            let code = try QRCode(bytes: bytes, correction: .medium, mask: mask)
            symbols.append(code)
            let modules = (0..<code.size * code.size).map { code[$0 % code.size, $0 / code.size] }
            scores.append(PenaltyScore.total(of: modules, size: code.size))
        }
        #expect(scores[chosen.mask] == scores.min())
        #expect(scores.firstIndex(of: scores.min()!) == chosen.mask)
        // Finder pattern corners are the same under every mask.
        for code in symbols {
            #expect(code[0, 0] && code[6, 6] && !code[7, 7] && code[code.size - 1, 0])
        }
    }
}
