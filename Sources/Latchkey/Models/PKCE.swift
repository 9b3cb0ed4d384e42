import Foundation
internal import LatchkeyWire

/// A PKCE verifier and its S256 challenge (RFC 7636), for email links that come back to the
/// app with `?code=` instead of a session.
///
/// ``SessionManager`` makes one for each email flow it starts and keeps the verifier in its
/// credential store until ``AuthEmail/exchangeCode(from:)`` spends it, so the flow
/// survives the app being closed while the user reads the email.
public struct PKCE: Sendable, Hashable {
    /// 43–128 characters of `[A-Za-z0-9-._~]`; secret.
    public let verifier: String
    /// `BASE64URL(SHA256(verifier))`, sent with `code_challenge_method=s256`.
    public var challenge: String { Self.challenge(for: verifier) }

    /// A fresh random verifier (32 random bytes, 43 characters).
    public init() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        self.init(verifier: Base64URL.encode(bytes))
    }

    /// A pair around an existing verifier.
    public init(verifier: String) {
        self.verifier = verifier
    }

    static func challenge(for verifier: String) -> String {
        OAuthDigest.pkceChallenge(for: verifier)
    }
}

extension PKCE: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "PKCE(verifier: <redacted>)" }
    public var debugDescription: String { description }
}
