/// The fixed patterns of a symbol (ISO/IEC 18004 section 6.3): three finder patterns with their
/// separators, the timing patterns, the alignment patterns (version 2 and up), the version
/// information (version 7 and up), and the reserved format information area.
extension ModuleGrid {
    /// Draws every function pattern and reserves the format information area (written once
    /// the mask is chosen; see ``drawFormatInformation(correction:mask:)``).
    mutating func drawFunctionPatterns() {
        // Timing patterns: row 6 and column 6, alternating, dark on even coordinates. The
        // finder patterns drawn next overwrite their ends.
        for index in 0..<size {
            setFunctionModule(x: 6, y: index, dark: index % 2 == 0)
            setFunctionModule(x: index, y: 6, dark: index % 2 == 0)
        }
        drawFinderPattern(centerX: 3, centerY: 3)
        drawFinderPattern(centerX: size - 4, centerY: 3)
        drawFinderPattern(centerX: 3, centerY: size - 4)

        let centers = Self.alignmentPatternCenters(version: version)
        for centerY in centers {
            for centerX in centers {
                // Not where a finder pattern is: the top-left, top-right and bottom-left corners.
                let first = centers[0]
                let last = centers[centers.count - 1]
                if (centerX == first && centerY == first) || (centerX == last && centerY == first)
                    || (centerX == first && centerY == last)
                {
                    continue
                }
                drawAlignmentPattern(centerX: centerX, centerY: centerY)
            }
        }

        drawFormatInformation(bits: 0)  // reserves the area
        drawVersionInformation()
    }

    /// A 7 × 7 finder pattern (dark ring, light ring, dark 3 × 3 centre) and its one-module
    /// light separator, clipped to the symbol.
    private mutating func drawFinderPattern(centerX: Int, centerY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centerX + dx
                let y = centerY + dy
                guard x >= 0, y >= 0, x < size, y < size else { continue }
                let ring = max(abs(dx), abs(dy))
                setFunctionModule(x: x, y: y, dark: ring != 2 && ring != 4)
            }
        }
    }

    /// A 5 × 5 alignment pattern: dark ring, light ring, dark centre.
    private mutating func drawAlignmentPattern(centerX: Int, centerY: Int) {
        for dy in -2...2 {
            for dx in -2...2 {
                setFunctionModule(x: centerX + dx, y: centerY + dy, dark: max(abs(dx), abs(dy)) != 1)
            }
        }
    }

    /// The rows (and columns) of the alignment pattern centres (ISO/IEC 18004 annex E): 6 and
    /// size − 7, and between them `version / 7` more, spaced evenly backwards from size − 7 by
    /// an even step (the first gap takes the rest). Version 32's step is 26 in the standard's
    /// table, not the 28 the rule gives.
    static func alignmentPatternCenters(version: Int) -> [Int] {
        guard version >= 2 else { return [] }
        let count = version / 7 + 2
        let last = 17 + 4 * version - 7
        var step: Int
        if version == 32 {
            step = 26
        } else {
            let span = last - 6
            step = (span + count - 2) / (count - 1)  // rounded up
            step += step % 2  // to an even number
        }
        var centers = [6]
        for index in stride(from: count - 2, through: 0, by: -1) {
            centers.append(last - index * step)
        }
        return centers
    }
}
