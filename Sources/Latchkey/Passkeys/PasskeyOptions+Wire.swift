import Foundation
internal import LatchkeyWire

// The options and passkeys the server's JSON describes, binary fields decoded. An option that
// cannot be read (a relying party id or challenge missing, a field that is not base64url) is an
// invalid response: an authenticator must not be asked with it.

extension PasskeyCreationOptions {
    init(wire: PublicKeyCredentialCreationOptionsJSON) throws {
        guard !wire.rp.id.isEmpty else { throw BackendError.invalidResponse(reason: "the passkey options name no relying party") }
        let selection = wire.authenticatorSelection
        self.init(
            relyingParty: .init(id: wire.rp.id, name: wire.rp.name.isEmpty ? wire.rp.id : wire.rp.name),
            user: .init(id: try Self.bytes(wire.user.id, "user id"), name: wire.user.name, displayName: wire.user.displayName),
            challenge: try Self.challenge(wire.challenge),
            algorithms: wire.pubKeyCredParams.filter { $0.type == "public-key" }.map(\.alg),
            timeout: wire.timeout.map { TimeInterval($0) / 1000 },
            excludedCredentialIDs: try (wire.excludeCredentials ?? []).map { try Self.bytes($0.id, "excluded credential") },
            userVerification: PasskeyUserVerification(wire: selection?.userVerification),
            requiresResidentKey: selection?.requireResidentKey ?? (selection?.residentKey.map { $0 != "discouraged" } ?? true),
            attestation: wire.attestation ?? "none")
    }
}

extension PasskeyRequestOptions {
    /// A ``Mediation/modal`` request.
    init(wire: PublicKeyCredentialRequestOptionsJSON) throws {
        guard !wire.rpId.isEmpty else { throw BackendError.invalidResponse(reason: "the passkey options name no relying party") }
        self.init(
            relyingPartyID: wire.rpId, challenge: try PasskeyCreationOptions.challenge(wire.challenge),
            timeout: wire.timeout.map { TimeInterval($0) / 1000 },
            allowedCredentialIDs: try (wire.allowCredentials ?? []).map { try PasskeyCreationOptions.bytes($0.id, "allowed credential") },
            userVerification: PasskeyUserVerification(wire: wire.userVerification))
    }
}

extension PasskeyCreationOptions {
    /// Base64url as WebAuthn servers write it: unpadded, though a padded value is read too.
    static func bytes(_ text: String, _ field: String) throws -> Data {
        var text = Substring(text)
        while text.hasSuffix("=") { text = text.dropLast() }
        guard let data = Base64URL.decode(text) else {
            throw BackendError.invalidResponse(reason: "the passkey options' \(field) is not base64url")
        }
        return data
    }

    static func challenge(_ text: String) throws -> Data {
        let challenge = try bytes(text, "challenge")
        guard !challenge.isEmpty else { throw BackendError.invalidResponse(reason: "the passkey options carry no challenge") }
        return challenge
    }
}

extension PasskeyUserVerification {
    /// WebAuthn's value; one this version does not know reads as the default, `preferred`.
    init(wire: String?) {
        self = wire.flatMap(PasskeyUserVerification.init(rawValue:)) ?? .preferred
    }
}

extension Passkey {
    /// A passkey as the server lists it; an unreadable time reads as absent.
    init(wire: PasskeyResponse) {
        self.init(
            id: wire.id, friendlyName: wire.friendly_name ?? "", createdAt: WireDate.parse(wire.created_at),
            lastUsedAt: wire.last_used_at.flatMap(WireDate.parse))
    }
}
