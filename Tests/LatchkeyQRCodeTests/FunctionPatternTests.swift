import Testing

@testable import LatchkeyQRCode

@Suite("Function patterns")
struct FunctionPatternTests {
    @Test("Alignment pattern centres: ISO/IEC 18004 annex E, table E.1")
    func alignmentCenters() {
        let expected: [Int: [Int]] = [
            1: [], 2: [6, 18], 6: [6, 34], 7: [6, 22, 38], 14: [6, 26, 46, 66], 15: [6, 26, 48, 70],
            16: [6, 26, 50, 74], 22: [6, 26, 50, 74, 98], 28: [6, 26, 50, 74, 98, 122],
            32: [6, 34, 60, 86, 112, 138], 33: [6, 30, 58, 86, 114, 142], 36: [6, 24, 50, 76, 102, 128, 154],
            39: [6, 26, 54, 82, 110, 138, 166], 40: [6, 30, 58, 86, 114, 142, 170],
        ]
        for (version, centers) in expected {
            #expect(ModuleGrid.alignmentPatternCenters(version: version) == centers, "version \(version)")
        }
    }

    @Test("Finder patterns in three corners, separators, timing patterns, alignment patterns")
    func patterns() throws {
        let code = try QRCode(String(repeating: "p", count: 100), correction: .low)  // version 5
        #expect(code.version == 5)
        let n = code.size
        for (cornerX, cornerY) in [(0, 0), (n - 7, 0), (0, n - 7)] {
            for dy in -1...7 {
                for dx in -1...7 {
                    let x = cornerX + dx
                    let y = cornerY + dy
                    guard x >= 0, y >= 0, x < n, y < n else { continue }
                    let ring = max(abs(dx - 3), abs(dy - 3))
                    #expect(code[x, y] == (ring != 2 && ring != 4), "finder at (\(cornerX), \(cornerY)): (\(x), \(y))")
                }
            }
        }
        for index in 8..<(n - 8) {
            #expect(code[index, 6] == (index % 2 == 0))
            #expect(code[6, index] == (index % 2 == 0))
        }
        // Version 5's single alignment pattern at (30, 30).
        for dy in -2...2 {
            for dx in -2...2 {
                #expect(code[30 + dx, 30 + dy] == (max(abs(dx), abs(dy)) != 1))
            }
        }
        #expect(!code[-1, 0] && !code[n, n - 1], "outside the symbol is light")
    }
}
