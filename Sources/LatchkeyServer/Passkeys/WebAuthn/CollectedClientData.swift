import Foundation
import LatchkeyWire

/// The client data the browser or platform signed over (WebAuthn Level 3 §5.8.1), from
/// `clientDataJSON`.
///
/// Only the members the ceremony checks are read: `type`, `challenge` (base64url), `origin`,
/// `crossOrigin` and `topOrigin`. Others (`tokenBinding`, reserved in Level 3, or future
/// members) are ignored, as §5.8.1.2 asks of a relying party that parses the JSON.
struct CollectedClientData: Sendable {
    /// The ceremony: `webauthn.create` or `webauthn.get`.
    let type: String
    /// The challenge, base64url-decoded; `nil` when it was not strict base64url.
    let challenge: [UInt8]?
    /// The origin of the page that ran the ceremony.
    let origin: String
    /// Whether the ceremony ran in an iframe not same-origin with its ancestors.
    let crossOrigin: Bool
    /// The top-level origin when it ran in such an iframe.
    let topOrigin: String?

    /// The longest clientDataJSON read: a real one is a few hundred bytes.
    static let maximumLength = 16 * 1024

    private struct Wire: Decodable {
        var type: String
        var challenge: String
        var origin: String
        var crossOrigin: Bool?
        var topOrigin: String?
    }

    /// Parses `json`; ``WebAuthnError/malformedClientData`` unless it is a JSON object with string
    /// `type`, `challenge` and `origin` (and a boolean `crossOrigin`, a string `topOrigin` if present).
    init(json: [UInt8]) throws(WebAuthnError) {
        guard json.count <= Self.maximumLength else { throw .malformedClientData }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(json))
        } catch {
            throw .malformedClientData
        }
        type = wire.type
        challenge = Base64URL.decode(wire.challenge).map { Array($0) }
        origin = wire.origin
        crossOrigin = wire.crossOrigin ?? false
        topOrigin = wire.topOrigin
    }

    /// Checks type, challenge and origins as §7.1 steps 7-10 and §7.2 steps 11-14 say.
    func verify(type expectedType: String, challenge expected: [UInt8], relyingParty: RelyingParty) throws(WebAuthnError) {
        guard type == expectedType else {
            // Echo only a known ceremony name, never arbitrary client text.
            throw .wrongCeremonyType(["webauthn.create", "webauthn.get"].contains(type) ? type : "other")
        }
        guard let challenge, constantTimeEquals(challenge, expected) else { throw .challengeMismatch }
        guard relyingParty.origins.contains(origin) else { throw .originNotAllowed }
        if let topOrigin {
            guard relyingParty.topOrigins.contains(topOrigin) else { throw .topOriginNotAllowed }
        } else if crossOrigin {
            guard !relyingParty.topOrigins.isEmpty else { throw .crossOriginNotAllowed }
        }
    }
}
