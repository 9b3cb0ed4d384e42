import Testing

@testable import LatchkeyQRCode

@Suite("Capacity tables")
struct SymbolCapacityTests {
    @Test("Total codewords per version: ISO/IEC 18004 table 1")
    func totalCodewords() {
        let expected: [Int: Int] = [1: 26, 2: 44, 6: 172, 7: 196, 10: 346, 14: 581, 20: 1085, 27: 1828, 32: 2465, 40: 3706]
        for (version, total) in expected {
            #expect(SymbolCapacity.totalCodewords(version: version) == total, "version \(version)")
        }
        // Remainder bits: 0 for version 1, 7 for 2–6, 0 for 7–13, 3 for 14–20, 4 for 21–27, 3 for 28–34, 0 for 35–40.
        let remainders = [1: 0, 2: 7, 6: 7, 7: 0, 13: 0, 14: 3, 20: 3, 21: 4, 27: 4, 28: 3, 34: 3, 35: 0, 40: 0]
        for (version, bits) in remainders {
            #expect(SymbolCapacity.dataModuleCount(version: version) % 8 == bits, "version \(version)")
        }
    }

    @Test("Byte-mode capacity: ISO/IEC 18004 table 7")
    func byteCapacity() {
        let expected: [Int: [Int]] = [
            1: [17, 14, 11, 7], 2: [32, 26, 20, 14], 5: [106, 84, 60, 44], 9: [230, 180, 130, 98],
            10: [271, 213, 151, 119], 15: [520, 412, 292, 220], 26: [1367, 1059, 751, 593], 40: [2953, 2331, 1663, 1273],
        ]
        for (version, capacities) in expected {
            for (level, capacity) in zip(QRCode.ErrorCorrection.allCases, capacities) {
                #expect(SymbolCapacity.byteCapacity(version: version, correction: level) == capacity, "\(version)-\(level)")
            }
        }
    }

    @Test("The largest string of each version and level encodes in that version; one byte more needs the next")
    func largestStringPerVersion() throws {
        for level in QRCode.ErrorCorrection.allCases {
            for version in 1...40 {
                let capacity = SymbolCapacity.byteCapacity(version: version, correction: level)
                let fitting = try QRCode(String(repeating: "x", count: capacity), correction: level)
                #expect(fitting.version == version, "\(capacity) bytes at \(level)")
                #expect(fitting.size == 17 + 4 * version)
                if version < 40 {
                    let over = try QRCode(String(repeating: "x", count: capacity + 1), correction: level)
                    #expect(over.version == version + 1, "\(capacity + 1) bytes at \(level)")
                }
            }
        }
    }

    @Test("Data over version 40's capacity throws QRCodeError")
    func tooLong() throws {
        _ = try QRCode(String(repeating: "a", count: 2953), correction: .low)
        #expect(throws: QRCodeError(byteCount: 2954, correction: .low)) {
            try QRCode(String(repeating: "a", count: 2954), correction: .low)
        }
        // UTF-8 bytes count, not characters: 637 × "🔑" is 2,548 bytes, over the 2,331 of M.
        let error = #expect(throws: QRCodeError.self) { try QRCode(String(repeating: "🔑", count: 637)) }
        #expect(error?.byteCount == 2548)
        #expect(error?.capacity == 2331)
    }

    @Test("Byte mode: indicator, 8-bit count, data, terminator, pad codewords EC 11")
    func dataCodewords() {
        // "ab" at 1-M: 0100 00000010 01100001 01100010 0000, then EC 11 … to 16 codewords.
        let codewords = DataCodewords.byteMode(Array("ab".utf8), version: 1, correction: .medium)
        #expect(codewords == [0x40, 0x26, 0x16, 0x20, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11])
        // Version 10 and up: a 16-bit count.
        let long = DataCodewords.byteMode([0xFF], version: 10, correction: .high)
        #expect(Array(long.prefix(4)) == [0x40, 0x00, 0x1F, 0xF0])
        // The empty string: a count of 0 (decoders such as zxing-cpp report no empty symbol,
        // so the round trip does not decode it).
        #expect(Array(DataCodewords.byteMode([], version: 1, correction: .high).prefix(4)) == [0x40, 0x00, 0xEC, 0x11])
        // A full symbol leaves no room for the terminator.
        let full = DataCodewords.byteMode(Array(repeating: 0x41, count: 14), version: 1, correction: .medium)
        #expect(full.count == 16)
        #expect(full.last == 0x10)
    }
}
