import Foundation

/// The few CBOR items (RFC 8949) a ``SoftwarePasskeyAuthenticator`` writes: integers, byte and
/// text strings, and maps whose entries are written in the order given (callers give them in
/// CTAP2's canonical order).
enum SoftwareCBOR {
    static func int(_ value: Int) -> [UInt8] {
        value >= 0 ? head(0, UInt64(value)) : head(1, UInt64(-1 - value))
    }

    static func bytes(_ data: Data) -> [UInt8] { head(2, UInt64(data.count)) + data }

    static func text(_ text: String) -> [UInt8] { head(3, UInt64(text.utf8.count)) + Array(text.utf8) }

    static func map(_ entries: [([UInt8], [UInt8])]) -> [UInt8] {
        entries.reduce(head(5, UInt64(entries.count))) { $0 + $1.0 + $1.1 }
    }

    /// A major type and its argument, in the shortest form.
    private static func head(_ major: UInt8, _ value: UInt64) -> [UInt8] {
        let type = major << 5
        switch value {
        case ..<24: return [type | UInt8(value)]
        case ..<0x100: return [type | 24, UInt8(value)]
        case ..<0x1_0000: return [type | 25] + withUnsafeBytes(of: UInt16(value).bigEndian, Array.init)
        case ..<0x1_0000_0000: return [type | 26] + withUnsafeBytes(of: UInt32(value).bigEndian, Array.init)
        default: return [type | 27] + withUnsafeBytes(of: value.bigEndian, Array.init)
        }
    }
}
