import Foundation
internal import LatchkeyWire

/// The nonce that binds an ID token to one sign-in attempt, so that a token taken from another
/// sign-in cannot be replayed here.
///
/// Give the provider ``hashed`` (Sign in with Apple: `ASAuthorizationAppleIDRequest.nonce`;
/// Google Sign-In: the `nonce` of `signIn(withPresenting:hint:additionalScopes:nonce:)`); the
/// ID token then carries it, and the server checks it against ``raw``, which goes with the
/// token to ``AuthAccount/signInWithIdToken(provider:idToken:nonce:accessToken:appleAuthorizationCode:)``.
///
/// ```swift
/// let nonce = SignInNonce()
/// request.nonce = nonce.hashed
/// // … when the credential arrives:
/// try await manager.account.signInWithIdToken(provider: .apple, idToken: idToken, nonce: nonce.raw)
/// ```
///
/// Its description never shows the values.
public struct SignInNonce: Sendable, Hashable {
    /// The random value the app keeps and sends to the auth server with the ID token; secret.
    public let raw: String
    /// `SHA256(raw)` in lowercase hex: what the provider puts in the ID token's `nonce` claim.
    public var hashed: String { Self.hash(raw) }

    /// A fresh nonce: 32 random bytes as 64 hexadecimal characters.
    public init() {
        var generator = SystemRandomNumberGenerator()
        self.init(raw: (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined())
    }

    /// A nonce around an existing raw value.
    public init(raw: String) {
        self.raw = raw
    }

    /// `SHA256(value)` in lowercase hex.
    static func hash(_ value: String) -> String {
        OAuthDigest.hashedNonce(value)
    }
}

extension SignInNonce: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "SignInNonce(<redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["raw": "<redacted>"], displayStyle: .struct) }
}
