/// The format information (error correction level and mask, ISO/IEC 18004 section 7.9) and the
/// version information (section 7.10), each protected by a BCH code.
extension ModuleGrid {
    /// The 15 format bits for a level and mask: 5 data bits, 10 bits of the (15, 5) BCH code
    /// with generator x¹⁰ + x⁸ + x⁵ + x⁴ + x² + x + 1, XOR 101010000010010 so that the bits
    /// are never all light.
    static func formatBits(correction: QRCode.ErrorCorrection, mask: Int) -> Int {
        let data = correction.formatBits << 3 | mask
        return (data << 10 | bchRemainder(data, generator: 0b101_0011_0111, degree: 10)) ^ 0b101_0100_0001_0010
    }

    /// The 18 version bits (version 7 and up): 6 data bits and 12 bits of the (18, 6) BCH code
    /// with generator x¹² + x¹¹ + x¹⁰ + x⁹ + x⁸ + x⁵ + x² + 1.
    static func versionBits(version: Int) -> Int {
        version << 12 | bchRemainder(version, generator: 0b1_1111_0010_0101, degree: 12)
    }

    /// The remainder of `data` × x^degree divided by `generator` over GF(2).
    private static func bchRemainder(_ data: Int, generator: Int, degree: Int) -> Int {
        var remainder = data << degree
        for bit in stride(from: bitWidth(remainder) - 1, through: degree, by: -1) where remainder >> bit & 1 == 1 {
            remainder ^= generator << (bit - degree)
        }
        return remainder
    }

    private static func bitWidth(_ value: Int) -> Int {
        Int.bitWidth - value.leadingZeroBitCount
    }

    /// Writes the format information for the chosen level and mask, in both copies.
    mutating func drawFormatInformation(correction: QRCode.ErrorCorrection, mask: Int) {
        drawFormatInformation(bits: Self.formatBits(correction: correction, mask: mask))
    }

    /// Writes 15 format bits (bit 0 the least significant) in both copies, and the dark module.
    mutating func drawFormatInformation(bits: Int) {
        func bit(_ index: Int) -> Bool { bits >> index & 1 == 1 }
        // Around the top-left finder: down column 8 (skipping the timing row), then left along
        // row 8 (skipping the timing column).
        for index in 0...5 { setFunctionModule(x: 8, y: index, dark: bit(index)) }
        setFunctionModule(x: 8, y: 7, dark: bit(6))
        setFunctionModule(x: 8, y: 8, dark: bit(7))
        setFunctionModule(x: 7, y: 8, dark: bit(8))
        for index in 9...14 { setFunctionModule(x: 14 - index, y: 8, dark: bit(index)) }
        // The second copy: row 8 under the top-right finder, column 8 beside the bottom-left one.
        for index in 0...7 { setFunctionModule(x: size - 1 - index, y: 8, dark: bit(index)) }
        for index in 8...14 { setFunctionModule(x: 8, y: size - 15 + index, dark: bit(index)) }
        // The module above the second copy's column part is always dark.
        setFunctionModule(x: 8, y: size - 8, dark: true)
    }

    /// Writes the version information (version 7 and up) in its two 6 × 3 blocks, next to the
    /// top-right and the bottom-left finder patterns.
    mutating func drawVersionInformation() {
        guard version >= 7 else { return }
        let bits = Self.versionBits(version: version)
        for index in 0..<18 {
            let dark = bits >> index & 1 == 1
            let along = index / 3
            let across = size - 11 + index % 3
            setFunctionModule(x: across, y: along, dark: dark)
            setFunctionModule(x: along, y: across, dark: dark)
        }
    }
}
