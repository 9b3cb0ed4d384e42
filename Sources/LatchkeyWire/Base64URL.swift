import Foundation

/// Unpadded base64url (RFC 4648 §5), as JWS, JWK, PKCE and the server's opaque tokens use it.
///
/// Decoding is strict: `=`, `+`, `/`, whitespace or an impossible length make it fail, so one
/// token has exactly one spelling.
public enum Base64URL {
    /// `data` as unpadded base64url.
    @inlinable
    public static func encode(_ data: some DataProtocol) -> String {
        var text = Data(data).base64EncodedString()
        text.removeAll { $0 == "=" }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    /// The bytes of `text`, or `nil` unless it is strict unpadded base64url.
    @inlinable
    public static func decode(_ text: some StringProtocol) -> Data? {
        decode(utf8: text.utf8)
    }

    /// The bytes of base64url text given as its UTF-8 bytes (a JWT's segment, say), or `nil`
    /// unless it is strict unpadded base64url.
    @inlinable
    public static func decode(utf8 text: some Collection<UInt8>) -> Data? {
        var base64 = [UInt8]()
        base64.reserveCapacity(text.count + 3)
        for byte in text {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                base64.append(byte)
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        if base64.count % 4 == 1 { return nil }
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(base64))
    }
}
