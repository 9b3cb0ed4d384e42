@testable import LatchkeyServer

/// A tiny CBOR encoder for the tests (shortest-form heads, pairs in the order given), the
/// inverse of ``CBORDecoder`` on its subset.
enum CBOREncoder {
    static func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    static func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
        let type = major << 5
        switch argument {
        case 0..<24: return [type | UInt8(argument)]
        case 24...0xff: return [type | 24, UInt8(argument)]
        case 0x100...0xffff: return [type | 25] + bigEndian(argument, count: 2)
        case 0x1_0000...0xffff_ffff: return [type | 26] + bigEndian(argument, count: 4)
        default: return [type | 27] + bigEndian(argument, count: 8)
        }
    }

    static func bigEndian(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    private static func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let n): out += head(0, n)
        case .negative(let n): out += head(1, n)
        case .bytes(let bytes): out += head(2, UInt64(bytes.count)) + bytes
        case .text(let text): out += head(3, UInt64(text.utf8.count)) + Array(text.utf8)
        case .array(let elements):
            out += head(4, UInt64(elements.count))
            for element in elements { append(element, to: &out) }
        case .map(let entries):
            out += head(5, UInt64(entries.count))
            for entry in entries {
                append(entry.key, to: &out)
                append(entry.value, to: &out)
            }
        case .bool(let flag): out.append(flag ? 0xf5 : 0xf4)
        case .null: out.append(0xf6)
        case .undefined: out.append(0xf7)
        }
    }
}

extension CBORValue {
    /// An integer value (COSE labels and parameters).
    static func int(_ value: Int) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// A map from pairs, in order.
    static func pairs(_ pairs: [(CBORValue, CBORValue)]) -> CBORValue {
        .map(pairs.map { CBORMapEntry(key: $0.0, value: $0.1) })
    }
}

/// Bytes from hex text (spaces allowed), for the RFC's examples.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}
