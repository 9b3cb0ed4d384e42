import Foundation

/// Why ``AccessTokenVerifier`` did not accept an access token. No case carries the token.
public enum AccessTokenVerificationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a compact JWT with a JSON header and payload.
    case malformed(reason: String)
    /// The token is signed with HS256, the server's shared secret, which a client never has:
    /// ask the server instead (`GET /user`, ``GoTrueBackend/user(accessToken:)``). A server signs
    /// with HS256 until it is given an asymmetric key (`latchkey serve --jwt-keys`).
    case symmetricAlgorithm
    /// The header names an algorithm the verifier does not check (only ES256 and RS256), or
    /// `none`.
    case unsupportedAlgorithm(String)
    /// The header has no `kid`, so no published key can be chosen.
    case missingKeyID
    /// No key the server publishes has the token's `kid`, even after fetching the keys again
    /// (or the last fetch was too recent to fetch again; see
    /// ``AccessTokenVerifier/Options/minimumRefetchInterval``).
    case unknownKeyID
    /// The key with the token's `kid` is for another algorithm than the header names.
    case algorithmMismatch
    /// The signature is not the key's signature of the token.
    case invalidSignature
    /// The token has no `exp` claim.
    case missingExpiry
    /// The token expired at this time.
    case expired(at: Date)
    /// The token is not valid before this time (`nbf`).
    case notYetValid(until: Date)
    /// The server's keys could not be fetched (offline, an error status, an unreadable answer).
    case keysUnavailable(BackendError)

    public var description: String {
        switch self {
        case .malformed(let reason): "malformed access token: \(reason)"
        case .symmetricAlgorithm:
            "the token is signed with HS256 (the server's shared secret), which cannot be verified locally; ask the server (GET /user) or give the server an asymmetric signing key"
        case .unsupportedAlgorithm(let alg): "unsupported token algorithm \(alg); ES256 and RS256 are verified"
        case .missingKeyID: "the token names no signing key (kid)"
        case .unknownKeyID: "no published key matches the token's signing key (kid)"
        case .algorithmMismatch: "the token's algorithm is not its signing key's"
        case .invalidSignature: "invalid token signature"
        case .missingExpiry: "the token has no expiry (exp)"
        case .expired(let date): "the token expired at \(date)"
        case .notYetValid(let date): "the token is not valid before \(date)"
        case .keysUnavailable(let error): "the server's signing keys are unavailable: \(error)"
        }
    }
}
