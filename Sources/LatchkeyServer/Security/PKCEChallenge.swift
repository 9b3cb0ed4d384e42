import Crypto
import Foundation
import LatchkeyWire

/// A PKCE code challenge (RFC 7636) as a request carries it: `code_challenge` and
/// `code_challenge_method`, checked the way GoTrue checks them.
struct PKCEChallenge: Sendable, Equatable {
    var challenge: String
    var method: FlowState.ChallengeMethod

    /// The challenge of a request, or `nil` when it carries neither field (the implicit flow).
    ///
    /// Throws 400 `validation_failed` when only one of the two is present, when the challenge is
    /// not 43–128 characters of `[A-Za-z0-9._~-]`, or when the method is neither `S256` nor
    /// `plain` (case-insensitively).
    init?(challenge: String?, method: String?) throws(AuthError) {
        let challenge = challenge ?? ""
        let method = method ?? ""
        if challenge.isEmpty && method.isEmpty { return nil }
        guard !challenge.isEmpty, !method.isEmpty else {
            throw AuthError.validation("PKCE flow requires code_challenge_method and code_challenge")
        }
        guard (43...128).contains(challenge.utf8.count) else {
            throw AuthError.validation("code challenge has to be between 43 and 128 characters")
        }
        guard challenge.utf8.allSatisfy(Self.isUnreserved) else {
            throw AuthError.validation("code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes")
        }
        guard let parsed = FlowState.ChallengeMethod(rawValue: method.lowercased()) else {
            throw AuthError.validation("code challenge method not supported")
        }
        self.challenge = challenge
        self.method = parsed
    }

    /// The S256 challenge of `verifier`: `BASE64URL(SHA256(verifier))`.
    static func s256(_ verifier: String) -> String {
        OAuthDigest.pkceChallenge(for: verifier)
    }

    /// Whether `verifier` is the one this challenge was made from; compared in constant time.
    static func matches(challenge: String, method: FlowState.ChallengeMethod, verifier: String) -> Bool {
        let expected: String
        switch method {
        case .s256: expected = s256(verifier)
        case .plain: expected = verifier
        }
        return constantTimeEquals(expected, challenge)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
