import Foundation
import LatchkeyWire

extension JSONWebKey {
    /// The key as `/.well-known/jwks.json` publishes it, as GoTrue does: the public members only,
    /// `use: "sig"` and `key_ops: ["verify"]`. `nil` for a symmetric (`oct`) key, which has no
    /// public part and is never published.
    var publicKey: JSONWebKey? {
        var published = JSONWebKey(kty: kty, kid: kid, alg: alg, use: "sig", keyOps: ["verify"])
        switch kty {
        case "EC": (published.crv, published.x, published.y) = (crv, x, y)
        case "RSA": (published.n, published.e) = (n, e)
        default: return nil
        }
        return published
    }

    /// The key as compact JSON with sorted members.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
