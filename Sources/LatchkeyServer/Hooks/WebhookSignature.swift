import Crypto
import Foundation

/// Standard Webhooks' symmetric signature (`v1,<base64 HMAC-SHA256>` of `id.timestamp.body`),
/// the headers every HTTP hook request carries.
enum WebhookSignature {
    /// The `webhook-id`, `webhook-timestamp` and `webhook-signature` headers of `body` sent as
    /// message `id` at `timestamp`, one signature per key, separated by spaces.
    static func headers(id: String, timestamp: Date, body: Data, keys: [SymmetricKey]) -> [(String, String)] {
        let seconds = String(Int(timestamp.timeIntervalSince1970.rounded(.down)))
        var signed = Data("\(id).\(seconds).".utf8)
        signed.append(body)
        let signatures = keys.map { key in "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: key)).base64EncodedString() }
        return [("webhook-id", id), ("webhook-timestamp", seconds), ("webhook-signature", signatures.joined(separator: " "))]
    }
}
