/// The data codewords of a symbol: one byte-mode segment, the terminator and the padding
/// (ISO/IEC 18004 sections 7.4.5 and 7.4.10).
enum DataCodewords {
    /// The byte-mode indicator, 0100.
    static let byteModeIndicator = 0b0100
    /// The pad codewords that fill the rest of the data capacity, alternately.
    static let padCodewords: [UInt8] = [0xEC, 0x11]

    /// `bytes` as a byte-mode segment padded to the data capacity of `version` at `correction`;
    /// the caller has checked that it fits.
    static func byteMode(_ bytes: [UInt8], version: Int, correction: QRCode.ErrorCorrection) -> [UInt8] {
        let capacity = SymbolCapacity.dataCodewords(version: version, correction: correction)
        var buffer = BitBuffer(capacity: capacity * 8)
        buffer.append(byteModeIndicator, bits: 4)
        buffer.append(bytes.count, bits: SymbolCapacity.characterCountBits(version: version))
        for byte in bytes {
            buffer.append(Int(byte), bits: 8)
        }
        precondition(buffer.count <= capacity * 8, "the segment does not fit version \(version)")
        // The terminator (up to four 0 bits), then 0 bits to the next codeword boundary.
        buffer.append(0, bits: min(4, capacity * 8 - buffer.count))
        buffer.append(0, bits: (8 - buffer.count % 8) % 8)
        var codewords = buffer.bytes
        var pad = 0
        while codewords.count < capacity {
            codewords.append(padCodewords[pad])
            pad ^= 1
        }
        return codewords
    }
}
