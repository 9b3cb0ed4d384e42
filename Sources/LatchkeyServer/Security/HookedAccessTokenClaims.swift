import JWTKit
import LatchkeyWire

/// The claims of an access token as a custom access token hook answered them (checked by
/// ``CustomAccessTokenHook/validate(_:)``), signed as they are.
struct HookedAccessTokenClaims: JWTPayload {
    var claims: [String: JSONValue]

    init(_ claims: [String: JSONValue]) { self.claims = claims }

    init(from decoder: any Decoder) throws { claims = try decoder.singleValueContainer().decode([String: JSONValue].self) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(claims)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
