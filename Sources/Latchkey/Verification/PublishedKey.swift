import Crypto
import Foundation
internal import LatchkeyWire
import _CryptoExtras

/// A public key from the server's `/.well-known/jwks.json`, ready to check signatures.
enum PublishedKey: Sendable {
    case es256(P256.Signing.PublicKey)
    case rs256(_RSA.Signing.PublicKey)

    /// The `alg` tokens signed with it name.
    var algorithm: String {
        switch self {
        case .es256: "ES256"
        case .rs256: "RS256"
        }
    }

    /// Whether `signature` is this key's signature of `signedPart` (`header.payload`): JWS's
    /// 64-byte `r || s` for ES256, RSASSA-PKCS1-v1_5 with SHA-256 for RS256.
    func isValid(signature: Data, for signedPart: Data) -> Bool {
        switch self {
        case .es256(let key):
            guard signature.count == 64, let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: signedPart)
        case .rs256(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: signedPart, padding: .insecurePKCS1v1_5)
        }
    }

    /// The keys of a JWKS document by `kid`. Keys that cannot verify ES256 or RS256 tokens
    /// (symmetric keys, other curves or algorithms, keys for encryption, malformed members)
    /// are left out; so is a document that is not a JWKS.
    static func keys(inJWKS data: Data) -> [String: PublishedKey]? {
        guard let document = try? JSONDecoder().decode(Document.self, from: data) else { return nil }
        var keys: [String: PublishedKey] = [:]
        for jwk in document.keys {
            guard let kid = jwk.kid, keys[kid] == nil, let key = key(jwk) else { continue }
            keys[kid] = key
        }
        return keys
    }

    private static func key(_ jwk: Member) -> PublishedKey? {
        if let use = jwk.use, use != "sig" { return nil }
        if let operations = jwk.key_ops, !operations.contains("verify") { return nil }
        switch jwk.kty {
        case "EC":
            guard jwk.alg == nil || jwk.alg == "ES256", jwk.crv == "P-256",
                let x = jwk.x.flatMap(Base64URL.decode), let y = jwk.y.flatMap(Base64URL.decode), x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { return nil }
            return .es256(key)
        case "RSA":
            guard jwk.alg == nil || jwk.alg == "RS256", let n = jwk.n.flatMap(Base64URL.decode), let e = jwk.e.flatMap(Base64URL.decode),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { return nil }
            return .rs256(key)
        default:
            return nil
        }
    }

    /// `{"keys": [...]}`; a member that is not a JWK object (or has members of the wrong type)
    /// is skipped.
    private struct Document: Decodable {
        var keys: [Member]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let values = try container.decode([JSONValue].self, forKey: .keys)
            keys = values.compactMap { value in
                guard case .object = value, let data = try? JSONEncoder().encode(value) else { return nil }
                return try? JSONDecoder().decode(Member.self, from: data)
            }
        }

        enum CodingKeys: String, CodingKey { case keys }
    }

    private struct Member: Decodable {
        var kty: String?
        var kid: String?
        var alg: String?
        var use: String?
        var key_ops: [String]?
        var crv: String?
        var x: String?
        var y: String?
        var n: String?
        var e: String?
    }
}
