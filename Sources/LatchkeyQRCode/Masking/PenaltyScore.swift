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
        precondition(modules.count == size * size)
        var runs = [Int](repeating: 0, count: size + 1)
        return modules.withUnsafeBufferPointer { symbol in
            runs.withUnsafeMutableBufferPointer { runs in
                var score = 0
                for index in 0..<size {
                    score += lineScore(symbol, start: index * size, stride: 1, count: size, runs: runs)
                    score += lineScore(symbol, start: index, stride: size, count: size, runs: runs)
                }
                return score + blockScore(symbol, size: size) + balanceScore(symbol)
            }
        }
    }

    /// Rules 1 and 3 for one line of modules (a convenience for tests).
    static func lineScore(_ line: [Bool]) -> Int {
        var runs = [Int](repeating: 0, count: line.count + 1)
        return line.withUnsafeBufferPointer { line in
            runs.withUnsafeMutableBufferPointer { runs in
                lineScore(line, start: 0, stride: 1, count: line.count, runs: runs)
            }
        }
    }

    /// Rules 1 and 3 for the row or column of `count` modules at `start`, `stride` apart;
    /// `runs` is scratch space for `count + 1` run lengths.
    static func lineScore(
        _ modules: UnsafeBufferPointer<Bool>, start: Int, stride: Int, count: Int, runs: UnsafeMutableBufferPointer<Int>
    ) -> Int {
        // Run lengths, starting with a light run (0 long when the line starts dark), so that
        // even indices are light runs and odd indices dark runs. Without branches on the
        // module colours: a masked symbol is close to random, and mispredicted branches would
        // cost more than the counting.
        var runCount = 0
        var current = false
        var length = 0
        var position = start
        for _ in 0..<count {
            let dark = modules[position]
            position += stride
            let changed = dark != current ? 1 : 0
            runs[runCount] = length  // the finished run when the colour changed, else overwritten later
            runCount += changed
            length = length * (1 - changed) + 1
            current = dark
        }
        runs[runCount] = length
        runCount += 1

        var score = 0
        for index in 0..<runCount {
            let run = runs[index]
            score += run >= 5 ? run - 2 : 0  // 3 + (run − 5)
        }
        // A finder-like pattern is dark runs at odd indices i, i + 2, i + 4 around light runs;
        // the light runs before and after are runs[i − 1] and runs[i + 5], with the ends of the
        // line extended by the quiet zone.
        let lastIndex = runCount - 1
        var first = 1
        while first + 4 <= lastIndex {
            let unit = runs[first]
            if runs[first + 1] == unit, runs[first + 2] == 3 * unit, runs[first + 3] == unit, runs[first + 4] == unit {
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
    static func blockScore(_ modules: UnsafeBufferPointer<Bool>, size: Int) -> Int {
        var score = 0
        for y in 0..<size - 1 {
            let row = y * size
            let next = row + size
            for x in 0..<size - 1 {
                // 0 or 4 dark modules: one colour (summed, not branched on; see lineScore).
                let dark =
                    (modules[row + x] ? 1 : 0) + (modules[row + x + 1] ? 1 : 0) + (modules[next + x] ? 1 : 0)
                    + (modules[next + x + 1] ? 1 : 0)
                score += dark & 3 == 0 ? 3 : 0
            }
        }
        return score
    }

    /// Rule 4: 10 for each full 5 % step the dark share lies away from 50 %.
    static func balanceScore(_ modules: UnsafeBufferPointer<Bool>) -> Int {
        let total = modules.count
        var dark = 0
        for module in modules { dark += module ? 1 : 0 }
        // |dark / total − 1/2| / 5 %  =  |20 × dark − 10 × total| / total
        return 10 * (abs(20 * dark - 10 * total) / total)
    }
}
