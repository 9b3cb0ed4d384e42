import Foundation
internal import LatchkeyWire

/// The claims of a JWT, read without checking its signature (the server checks it;
/// ``AccessTokenVerifier`` checks it locally against the published keys).
enum JWTPayload {
    /// The payload of `token` as a JSON object, or `nil` when it is not a readable JWT.
    static func claims(of token: String) -> [String: Any]? {
        // Split by bytes: splitting a String by Characters walks its grapheme clusters, which
        // for a ~700-byte token cost more than parsing its payload.
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(utf8: parts[1]) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}
