/// The placement of the codewords in the symbol (ISO/IEC 18004 section 7.7.3).
extension ModuleGrid {
    /// Places `codewords` bit by bit, most significant first, in two-module-wide columns from
    /// the right edge, going up the first column pair, down the next and so on, skipping
    /// function modules and the vertical timing pattern's column. Modules left over (the
    /// remainder bits) stay light.
    mutating func placeCodewords(_ codewords: [UInt8]) {
        let bitCount = codewords.count * 8
        var bitIndex = 0
        var right = size - 1
        var upward = true
        while right >= 1 {
            if right == 6 { right = 5 }  // the timing column is not part of any pair
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in stride(from: right, through: right - 1, by: -1) where !isFunction[y * size + x] && bitIndex < bitCount {
                    let byte = codewords[bitIndex >> 3]
                    setDataModule(x: x, y: y, dark: byte >> (7 - UInt8(bitIndex & 7)) & 1 == 1)
                    bitIndex += 1
                }
            }
            upward.toggle()
            right -= 2
        }
        precondition(bitIndex == bitCount, "the codewords do not fill the symbol")
    }
}
