import Testing

@testable import LatchkeyQRCode

@Suite("Reed–Solomon over GF(256)")
struct ReedSolomonTests {
    @Test("α⁸ reduces by the primitive polynomial 0x11D, and the field has 255 distinct powers")
    func fieldTables() {
        #expect(GaloisField.exponents[8] == 0x1D)
        #expect(GaloisField.exponents[255] == 1)
        #expect(Set(GaloisField.exponents[0..<255]).count == 255)
        for a in 1...255 {
            #expect(GaloisField.multiply(UInt8(a), 1) == UInt8(a))
        }
        #expect(GaloisField.multiply(0x80, 2) == 0x1D)
    }

    @Test("ISO/IEC 18004 annex I: \"01234567\" at 1-M gives error correction A5 24 D4 C1 ED 36 C7 87 2C 55")
    func standardExample() {
        let data: [UInt8] = [
            0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11,
        ]
        #expect(ReedSolomonEncoder(degree: 10).remainder(of: data) == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    @Test("\"HELLO WORLD\" at 1-Q and 1-M (the tutorial's worked example)")
    func helloWorld() {
        let quartile: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236]
        #expect(
            ReedSolomonEncoder(degree: 13).remainder(of: quartile) == [168, 72, 22, 82, 217, 54, 156, 0, 46, 15, 180, 122, 16])
        let medium: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        #expect(ReedSolomonEncoder(degree: 10).remainder(of: medium) == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    @Test("A codeword with its error correction is divisible by the generator: the syndromes are 0")
    func syndromesVanish() {
        var seed: UInt32 = 12345
        for degree in Set(SymbolCapacity.errorCorrectionCodewordsPerBlock.joined()) where degree > 0 {
            let data = (0..<40).map { _ -> UInt8 in
                seed = seed &* 1_103_515_245 &+ 12345
                return UInt8(truncatingIfNeeded: seed >> 16)
            }
            let codeword = data + ReedSolomonEncoder(degree: degree).remainder(of: data)
            for root in 0..<degree {
                // Horner's rule at αʳᵒᵒᵗ.
                var value: UInt8 = 0
                for coefficient in codeword {
                    value = GaloisField.multiply(value, GaloisField.exponents[root]) ^ coefficient
                }
                #expect(value == 0, "degree \(degree), root α^\(root)")
            }
        }
    }

    @Test("Interleaving: version 5-Q has two blocks of 15 data codewords and two of 16")
    func interleaving() {
        // Data codewords numbered 0…61 show their order after interleaving.
        let data = (0..<62).map { UInt8($0) }
        let result = CodewordBlocks.interleavedWithErrorCorrection(data, version: 5, correction: .quartile)
        #expect(result.count == 134)
        #expect(Array(result.prefix(8)) == [0, 15, 30, 46, 1, 16, 31, 47])
        // After the 15th column of all four blocks, only the two long blocks continue.
        #expect(Array(result[56..<62]) == [14, 29, 44, 60, 45, 61])
        let thirdBlockCorrection = ReedSolomonEncoder(degree: 18).remainder(of: data[30..<46])
        #expect(result[62 + 2] == thirdBlockCorrection[0])
        #expect(result[62 + 4 + 2] == thirdBlockCorrection[1])
    }
}
