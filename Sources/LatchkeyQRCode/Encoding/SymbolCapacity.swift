/// How much a symbol of each version and error correction level holds (ISO/IEC 18004 tables 7
/// and 9): the error correction codewords per block and the number of blocks. Everything else
/// (total codewords, data codewords, block lengths) follows from the symbol's geometry.
enum SymbolCapacity {
    /// Error correction codewords in each block, by level (L, M, Q, H) and version (index 0 unused).
    static let errorCorrectionCodewordsPerBlock: [[Int]] = [
        [
            0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
            28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
            26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        ],
        [
            0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
            28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
            30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
    ]

    /// Error correction blocks, by level (L, M, Q, H) and version (index 0 unused).
    static let blockCount: [[Int]] = [
        [
            0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
            8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25,
        ],
        [
            0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
            17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
        ],
        [
            0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
            23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
        ],
        [
            0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
            25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
        ],
    ]

    static let versions = 1...40

    /// Modules left for codewords once the function patterns and the format and version
    /// information are drawn; may not be a multiple of 8 (the rest are remainder bits).
    static func dataModuleCount(version: Int) -> Int {
        let size = 17 + 4 * version
        var count = size * size
        count -= 3 * 64  // finder patterns with their separators
        count -= 2 * (size - 16)  // timing patterns between the separators
        count -= 31  // format information (2 × 15) and the dark module
        if version >= 2 {
            let perSide = version / 7 + 2
            let alignmentPatterns = perSide * perSide - 3
            count -= alignmentPatterns * 25
            // Alignment patterns on the timing row and column overlap it by 5 modules each.
            count += 2 * (perSide - 2) * 5
        }
        if version >= 7 {
            count -= 2 * 18  // version information
        }
        return count
    }

    /// All codewords of the symbol, data and error correction.
    static func totalCodewords(version: Int) -> Int {
        dataModuleCount(version: version) / 8
    }

    /// The data codewords of the symbol at a level.
    static func dataCodewords(version: Int, correction: QRCode.ErrorCorrection) -> Int {
        let level = correction.tableIndex
        return totalCodewords(version: version) - errorCorrectionCodewordsPerBlock[level][version] * blockCount[level][version]
    }

    /// Bits of the byte-mode character count indicator: 8 up to version 9, 16 from version 10.
    static func characterCountBits(version: Int) -> Int {
        version <= 9 ? 8 : 16
    }

    /// The most bytes one byte-mode segment holds in this version at this level.
    static func byteCapacity(version: Int, correction: QRCode.ErrorCorrection) -> Int {
        let bits = dataCodewords(version: version, correction: correction) * 8 - 4 - characterCountBits(version: version)
        return bits / 8
    }

    /// The smallest version whose capacity holds `byteCount` bytes, `nil` when none does.
    static func smallestVersion(forByteCount byteCount: Int, correction: QRCode.ErrorCorrection) -> Int? {
        versions.first { byteCapacity(version: $0, correction: correction) >= byteCount }
    }
}
