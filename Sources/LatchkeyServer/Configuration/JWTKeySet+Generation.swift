import Crypto
import Foundation
import LatchkeyWire
import _CryptoExtras

extension JWTKeySet {
    /// A new private JWK for `algorithm`, as compact JSON to add to the JWT keys: a fresh random
    /// key, a fresh `kid` (a UUID), `use: "sig"` and `key_ops` `["sign", "verify"]`, or
    /// `["verify"]` when `signs` is `false` (a standby key, published before it signs).
    ///
    /// RS256 keys are 2048 bits; HS256 keys hold 32 random bytes.
    public static func generateKey(_ algorithm: Algorithm, signs: Bool = true) throws -> String {
        var jwk = JSONWebKey(
            kid: UUID().uuidString.lowercased(), alg: algorithm.rawValue, use: "sig", keyOps: signs ? ["sign", "verify"] : ["verify"])
        switch algorithm {
        case .hs256:
            jwk.kty = "oct"
            jwk.k = SymmetricKey(size: .bits256).withUnsafeBytes { Base64URL.encode(Data($0)) }
        case .es256:
            let key = P256.Signing.PrivateKey()
            let point = key.publicKey.rawRepresentation
            jwk.kty = "EC"
            jwk.crv = "P-256"
            jwk.x = Base64URL.encode(point.prefix(32))
            jwk.y = Base64URL.encode(point.suffix(32))
            jwk.d = Base64URL.encode(key.rawRepresentation)
        case .rs256:
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            // PKCS #1 RSAPrivateKey: version, n, e, d, p, q, dp, dq, qi.
            let numbers = try DERIntegerSequence.integers(in: key.derRepresentation)
            guard numbers.count >= 9 else { throw ConfigurationError("unexpected RSA private key encoding") }
            jwk.kty = "RSA"
            (jwk.n, jwk.e, jwk.d, jwk.p, jwk.q, jwk.dp, jwk.dq, jwk.qi) = (
                Base64URL.encode(numbers[1]), Base64URL.encode(numbers[2]), Base64URL.encode(numbers[3]), Base64URL.encode(numbers[4]),
                Base64URL.encode(numbers[5]), Base64URL.encode(numbers[6]), Base64URL.encode(numbers[7]), Base64URL.encode(numbers[8])
            )
        }
        return try jwk.json()
    }
}

/// Reads a DER `SEQUENCE` of `INTEGER`s (such as PKCS #1's RSAPrivateKey) into the integers'
/// unsigned big-endian bytes, without leading zeros.
enum DERIntegerSequence {
    struct Malformed: Error {}

    static func integers(in der: Data) throws -> [Data] {
        let bytes = [UInt8](der)
        var index = 0
        func length() throws -> Int {
            guard index < bytes.count else { throw Malformed() }
            let first = bytes[index]
            index += 1
            if first < 0x80 { return Int(first) }
            let count = Int(first & 0x7F)
            guard (1...4).contains(count), index + count <= bytes.count else { throw Malformed() }
            var value = 0
            for _ in 0..<count {
                value = value << 8 | Int(bytes[index])
                index += 1
            }
            return value
        }
        guard bytes.first == 0x30 else { throw Malformed() }
        index = 1
        let end = try length() + index
        guard end <= bytes.count else { throw Malformed() }
        var integers: [Data] = []
        while index < end {
            guard bytes[index] == 0x02 else { throw Malformed() }
            index += 1
            let count = try length()
            guard index + count <= end else { throw Malformed() }
            var value = bytes[index..<index + count]
            while value.count > 1, value.first == 0 { value = value.dropFirst() }
            integers.append(Data(value))
            index += count
        }
        return integers
    }
}
