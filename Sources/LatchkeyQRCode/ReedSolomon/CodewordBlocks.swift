/// The division of a symbol's data codewords into error correction blocks and the order the
/// codewords take in the symbol (ISO/IEC 18004 sections 7.5 and 7.6).
///
/// The blocks of a symbol all have the same number of error correction codewords; when the
/// data codewords do not divide evenly, the later blocks have one data codeword more.
enum CodewordBlocks {
    /// `data` split into blocks, each followed by its error correction codewords, then
    /// interleaved: the first data codeword of every block, then the second, …, then the error
    /// correction codewords in the same way.
    static func interleavedWithErrorCorrection(
        _ data: [UInt8], version: Int, correction: QRCode.ErrorCorrection
    ) -> [UInt8] {
        let level = correction.tableIndex
        let blocks = SymbolCapacity.blockCount[level][version]
        let eccPerBlock = SymbolCapacity.errorCorrectionCodewordsPerBlock[level][version]
        let total = SymbolCapacity.totalCodewords(version: version)
        precondition(data.count == total - blocks * eccPerBlock)

        let shortBlocks = blocks - total % blocks
        let shortDataLength = total / blocks - eccPerBlock
        let encoder = ReedSolomonEncoder(degree: eccPerBlock)

        var dataBlocks: [ArraySlice<UInt8>] = []
        var eccBlocks: [[UInt8]] = []
        dataBlocks.reserveCapacity(blocks)
        eccBlocks.reserveCapacity(blocks)
        var start = 0
        for block in 0..<blocks {
            let length = shortDataLength + (block < shortBlocks ? 0 : 1)
            let slice = data[start..<start + length]
            dataBlocks.append(slice)
            eccBlocks.append(encoder.remainder(of: slice))
            start += length
        }

        var result: [UInt8] = []
        result.reserveCapacity(total)
        for index in 0...shortDataLength {
            for block in dataBlocks where index < block.count {
                result.append(block[block.startIndex + index])
            }
        }
        for index in 0..<eccPerBlock {
            for block in eccBlocks {
                result.append(block[index])
            }
        }
        return result
    }
}
