/// One of the eight data mask patterns (ISO/IEC 18004 section 7.8.2, table 10): a data module
/// is inverted where the pattern's condition holds for its row `i` and column `j`.
struct MaskPattern {
    /// 0 to 7, the number the format information carries.
    let reference: Int

    init(_ reference: Int) {
        precondition((0...7).contains(reference), "mask patterns are 0 to 7")
        self.reference = reference
    }

    /// Whether the module in row `i`, column `j` is inverted.
    func inverts(row i: Int, column j: Int) -> Bool {
        switch reference {
        case 0: (i + j) % 2 == 0
        case 1: i % 2 == 0
        case 2: j % 3 == 0
        case 3: (i + j) % 3 == 0
        case 4: (i / 2 + j / 3) % 2 == 0
        case 5: (i * j) % 2 + (i * j) % 3 == 0
        case 6: ((i * j) % 2 + (i * j) % 3) % 2 == 0
        default: ((i + j) % 2 + (i * j) % 3) % 2 == 0
        }
    }

    /// The pattern with the lowest penalty score (``PenaltyScore``) for the symbol with its
    /// format information; the lowest reference wins a tie.
    static func best(for grid: ModuleGrid, correction: QRCode.ErrorCorrection) -> Int {
        var best = 0
        var bestScore = Int.max
        for reference in 0...7 {
            var candidate = grid
            candidate.apply(MaskPattern(reference))
            candidate.drawFormatInformation(correction: correction, mask: reference)
            let score = PenaltyScore.total(of: candidate.modules, size: candidate.size)
            if score < bestScore {
                best = reference
                bestScore = score
            }
        }
        return best
    }
}

extension ModuleGrid {
    /// Inverts the data modules where `mask` says so (applying it twice undoes it).
    mutating func apply(_ mask: MaskPattern) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && mask.inverts(row: y, column: x) {
                invertDataModule(at: y * size + x)
            }
        }
    }
}
