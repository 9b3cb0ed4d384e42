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
        let size = size
        let isFunction = isFunction
        withUnsafeMutableModules { modules in
            for i in 0..<size {
                let row = MaskPattern.Residues(i)
                var column = MaskPattern.Residues(0)
                for j in 0..<size {
                    let index = i * size + j
                    if !isFunction[index] && mask.inverts(row, column) {
                        modules[index].toggle()
                    }
                    column.advance()
                }
            }
        }
    }
}

extension MaskPattern {
    /// A row or column number by what the mask conditions need of it: modulo 2, modulo 3, and
    /// the parity of its halves and thirds. Kept up to date by addition as a scan moves on,
    /// because eight masks over a large symbol are hundreds of thousands of conditions.
    struct Residues {
        var mod2: Int
        var mod3: Int
        /// (n / 2) mod 2
        var halves: Int
        /// (n / 3) mod 2
        var thirds: Int

        init(_ n: Int) {
            mod2 = n % 2
            mod3 = n % 3
            halves = (n / 2) % 2
            thirds = (n / 3) % 2
        }

        mutating func advance() {
            mod2 ^= 1
            if mod2 == 0 { halves ^= 1 }
            mod3 += 1
            if mod3 == 3 {
                mod3 = 0
                thirds ^= 1
            }
        }
    }

    /// ``inverts(row:column:)`` from the residues of row `i` and column `j`: the products and
    /// sums of the conditions reduced modulo 2 and 3 factor by factor.
    @inline(__always)
    func inverts(_ i: Residues, _ j: Residues) -> Bool {
        switch reference {
        case 0: return (i.mod2 ^ j.mod2) == 0
        case 1: return i.mod2 == 0
        case 2: return j.mod3 == 0
        case 3: return (i.mod3 + j.mod3) % 3 == 0
        case 4: return (i.halves ^ j.thirds) == 0
        case 5: return (i.mod2 & j.mod2) == 0 && (i.mod3 == 0 || j.mod3 == 0)
        case 6: return ((i.mod2 & j.mod2) + (i.mod3 * j.mod3) % 3) % 2 == 0
        default: return ((i.mod2 ^ j.mod2) + (i.mod3 * j.mod3) % 3) % 2 == 0
        }
    }
}
