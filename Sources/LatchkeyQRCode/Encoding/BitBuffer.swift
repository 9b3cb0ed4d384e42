/// A sequence of bits written most significant bit first, packed into bytes.
struct BitBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    init(capacity bits: Int = 0) {
        bytes.reserveCapacity((bits + 7) / 8)
    }

    /// Appends the low `length` bits of `value`, most significant first.
    mutating func append(_ value: Int, bits length: Int) {
        precondition(length >= 0 && length <= 31 && value >> length == 0, "value does not fit \(length) bits")
        for shift in stride(from: length - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 {
                bytes[count / 8] |= 0x80 >> UInt8(count % 8)
            }
            count += 1
        }
    }
}
