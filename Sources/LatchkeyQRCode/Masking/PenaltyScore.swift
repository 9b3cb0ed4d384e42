/// The evaluation of a masked symbol (ISO/IEC 18004 section 7.8.3, table 11); the encoder uses
/// the mask with the lowest total.
///
/// 1. Each run of five or more modules of one colour in a row or column: 3 + (length − 5).
/// 2. Each 2 × 2 block of one colour (overlapping blocks count separately, which is the
///    standard's 3 × (m − 1) × (n − 1) for an m × n block): 3.
/// 3. Each dark–light–dark–light–dark run sequence in the ratio 1:1:3:1:1 in a row or column
///    with a light run of at least four times the unit before or after it: 40. Outside the
///    symbol counts as light (the quiet zone); one pattern with light on both sides counts once.
/// 4. The dark share: 10 for each full 5 % it lies away from 50 %.
///
/// Encoders read rule 3 in slightly different ways (the run length ratio or the exact module
/// sequence 1011101, once or twice when light is on both sides), so two encoders may choose
/// different masks for the same data; a decoder reads any mask.
enum PenaltyScore {
    static func total(of modules: [Bool], size: Int) -> Int {
        var score = 0
        var runs = [Int]()
        runs.reserveCapacity(size + 1)
        var line = [Bool](repeating: false, count: size)
        for index in 0..<size {
            for offset in 0..<size { line[offset] = modules[index * size + offset] }
            score += lineScore(line, runs: &runs)
            for offset in 0..<size { line[offset] = modules[offset * size + index] }
            score += lineScore(line, runs: &runs)
        }
        score += blockScore(modules, size: size)
        score += balanceScore(modules)
        return score
    }

    /// Rules 1 and 3 for one row or column.
    static func lineScore(_ line: [Bool], runs: inout [Int]) -> Int {
        // Run lengths, starting with a light run (0 long when the line starts dark), so that
        // even indices are light runs and odd indices dark runs.
        runs.removeAll(keepingCapacity: true)
        var current = false
        var length = 0
        for dark in line {
            if dark == current {
                length += 1
            } else {
                runs.append(length)
                current = dark
                length = 1
            }
        }
        runs.append(length)

        var score = 0
        for run in runs where run >= 5 {
            score += 3 + (run - 5)
        }
        // A finder-like pattern is dark runs at odd indices 2k+1 … 2k+5 around light runs;
        // the light runs before and after are runs[2k] and runs[2k+6], with the ends of the
        // line extended by the quiet zone.
        let lastIndex = runs.count - 1
        var first = 1
        while first + 4 <= lastIndex {
            let unit = runs[first]
            if unit > 0, runs[first + 1] == unit, runs[first + 2] == 3 * unit, runs[first + 3] == unit,
                runs[first + 4] == unit
            {
                let before = first == 1 ? Int.max : runs[first - 1]
                let after = first + 5 >= lastIndex ? Int.max : runs[first + 5]
                if before >= 4 * unit || after >= 4 * unit {
                    score += 40
                }
            }
            first += 2
        }
        return score
    }

    /// Rule 2: 3 for every 2 × 2 block of one colour.
    static func blockScore(_ modules: [Bool], size: Int) -> Int {
        var score = 0
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let colour = modules[y * size + x]
                if modules[y * size + x + 1] == colour, modules[(y + 1) * size + x] == colour,
                    modules[(y + 1) * size + x + 1] == colour
                {
                    score += 3
                }
            }
        }
        return score
    }

    /// Rule 4: 10 for each full 5 % step the dark share lies away from 50 %.
    static func balanceScore(_ modules: [Bool]) -> Int {
        let total = modules.count
        let dark = modules.reduce(0) { $0 + ($1 ? 1 : 0) }
        // |dark / total − 1/2| / 5 %  =  |20 × dark − 10 × total| / total
        return 10 * (abs(20 * dark - 10 * total) / total)
    }
}
