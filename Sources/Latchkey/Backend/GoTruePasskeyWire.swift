import Foundation
internal import LatchkeyWire

/// The JSON of GoTrue's passkey routes as the client reads and writes it: WebAuthn's JSON
/// serialization (binary fields in unpadded base64url) inside GoTrue's envelopes.
enum GoTruePasskeyWire {
    /// `POST /passkeys/{registration,authentication}/options`.
    struct OptionsAnswer<Options: Decodable>: Decodable {
        var challenge_id: String
        var expires_at: Int64?
        var options: Options
    }

    /// `PublicKeyCredentialCreationOptionsJSON`.
    struct CreationOptions: Decodable {
        struct RelyingParty: Decodable {
            var id: String?
            var name: String?
        }
        struct User: Decodable {
            var id: String
            var name: String?
            var displayName: String?
        }
        struct Parameter: Decodable {
            var type: String?
            var alg: Int
        }
        struct Selection: Decodable {
            var residentKey: String?
            var requireResidentKey: Bool?
            var userVerification: String?
        }

        var rp: RelyingParty
        var user: User
        var challenge: String
        var pubKeyCredParams: [Parameter]?
        var timeout: Double?
        var excludeCredentials: [Descriptor]?
        var authenticatorSelection: Selection?
        var attestation: String?
    }

    /// `PublicKeyCredentialRequestOptionsJSON`.
    struct RequestOptions: Decodable {
        var challenge: String
        var timeout: Double?
        var rpId: String?
        var allowCredentials: [Descriptor]?
        var userVerification: String?
    }

    /// `PublicKeyCredentialDescriptorJSON`.
    struct Descriptor: Decodable {
        var type: String?
        var id: String
    }

    /// `POST /passkeys/{registration,authentication}/verify`.
    struct VerifyBody<Response: Encodable & Sendable>: Encodable, Sendable {
        var challenge_id: String
        var credential: Credential<Response>
    }

    /// `RegistrationResponseJSON` / `AuthenticationResponseJSON`, as `credential.toJSON()` gives it.
    struct Credential<Response: Encodable & Sendable>: Encodable, Sendable {
        var id: String
        var rawId: String
        var type = "public-key"
        var response: Response
        var authenticatorAttachment: String?
        var clientExtensionResults: [String: String] = [:]
    }

    /// `AuthenticatorAttestationResponseJSON`.
    struct AttestationResponse: Encodable, Sendable {
        var clientDataJSON: String
        var attestationObject: String
        var transports: [String]
    }

    /// `AuthenticatorAssertionResponseJSON`.
    struct AssertionResponse: Encodable, Sendable {
        var clientDataJSON: String
        var authenticatorData: String
        var signature: String
        var userHandle: String?
    }

    /// A passkey as `GET /passkeys`, `PATCH /passkeys/{id}` and the registration's verify list it.
    struct PasskeyItem: Decodable {
        var id: String
        var friendly_name: String?
        var created_at: String?
        var last_used_at: String?
    }

    /// `PATCH /passkeys/{id}`.
    struct RenameBody: Encodable, Sendable {
        var friendly_name: String
    }

    /// `{}`: the options routes take no parameters.
    struct EmptyBody: Encodable, Sendable {}

    /// Base64url as WebAuthn servers write it: unpadded, though a padded value is read too.
    static func bytes(_ text: String) -> Data? {
        var text = Substring(text)
        while text.hasSuffix("=") { text = text.dropLast() }
        return Base64URL.decode(text)
    }

    static func text(_ data: Data) -> String { Base64URL.encode(data) }
}

extension PasskeyUserVerification {
    /// WebAuthn's value; one this version does not know reads as the default, `preferred`.
    init(wire: String?) {
        self = wire.flatMap(PasskeyUserVerification.init(rawValue:)) ?? .preferred
    }
}

extension Passkey {
    init(wire: GoTruePasskeyWire.PasskeyItem) {
        self.init(
            id: wire.id, friendlyName: wire.friendly_name ?? "", createdAt: wire.created_at.flatMap(WireDate.parse),
            lastUsedAt: wire.last_used_at.flatMap(WireDate.parse))
    }
}
