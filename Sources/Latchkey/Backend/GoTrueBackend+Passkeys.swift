import Foundation
internal import LatchkeyWire

/// GoTrue's passkey routes (`/passkeys/*`), as the Latchkey server and Supabase serve them. The
/// bodies are `LatchkeyWire`'s, which the server writes and reads too.
extension GoTrueBackend {
    public func passkeyRegistrationOptions(accessToken: String) async throws -> PasskeyChallenge<PasskeyCreationOptions> {
        let body = try await send("POST", "passkeys/registration/options", body: EmptyBody(), accessToken: accessToken)
        let answer = try decode(PasskeyOptionsResponse<PublicKeyCredentialCreationOptionsJSON>.self, from: body)
        return PasskeyChallenge(
            id: answer.challenge_id, expiresAt: Date(timeIntervalSince1970: TimeInterval(answer.expires_at)),
            options: try PasskeyCreationOptions(wire: answer.options))
    }

    public func verifyPasskeyRegistration(accessToken: String, challengeID: String, registration: PasskeyRegistration) async throws -> Passkey {
        let response = PasskeyCredential.Response(
            clientDataJSON: Base64URL.encode(registration.clientDataJSON), attestationObject: Base64URL.encode(registration.attestationObject),
            transports: registration.transports)
        let body = try await send(
            "POST", "passkeys/registration/verify",
            body: PasskeyVerifyBody(
                challenge_id: challengeID, credential: Self.credential(registration.credentialID, response, registration.attachment)),
            accessToken: accessToken)
        return Passkey(wire: try decode(PasskeyResponse.self, from: body))
    }

    public func passkeySignInOptions() async throws -> PasskeyChallenge<PasskeyRequestOptions> {
        let body = try await send("POST", "passkeys/authentication/options", body: EmptyBody())
        let answer = try decode(PasskeyOptionsResponse<PublicKeyCredentialRequestOptionsJSON>.self, from: body)
        return PasskeyChallenge(
            id: answer.challenge_id, expiresAt: Date(timeIntervalSince1970: TimeInterval(answer.expires_at)),
            options: try PasskeyRequestOptions(wire: answer.options))
    }

    public func verifyPasskeySignIn(challengeID: String, assertion: PasskeyAssertion) async throws -> Session {
        let response = PasskeyCredential.Response(
            clientDataJSON: Base64URL.encode(assertion.clientDataJSON), authenticatorData: Base64URL.encode(assertion.authenticatorData),
            signature: Base64URL.encode(assertion.signature), userHandle: assertion.userHandle.map(Base64URL.encode))
        let body = try await send(
            "POST", "passkeys/authentication/verify",
            body: PasskeyVerifyBody(challenge_id: challengeID, credential: Self.credential(assertion.credentialID, response, assertion.attachment)))
        return Session(wire: try decode(SessionResponse.self, from: body))
    }

    public func listPasskeys(accessToken: String) async throws -> [Passkey] {
        let body = try await send("GET", "passkeys", accessToken: accessToken)
        return try decode([PasskeyResponse].self, from: body).map(Passkey.init(wire:))
    }

    public func renamePasskey(accessToken: String, passkeyID: String, friendlyName: String) async throws -> Passkey {
        let body = try await send(
            "PATCH", "passkeys/\(try Self.pathSegment(passkeyID, notFound: "validation_failed"))",
            body: PasskeyUpdateBody(friendly_name: friendlyName), accessToken: accessToken)
        return Passkey(wire: try decode(PasskeyResponse.self, from: body))
    }

    public func deletePasskey(accessToken: String, passkeyID: String) async throws {
        _ = try await send("DELETE", "passkeys/\(try Self.pathSegment(passkeyID, notFound: "validation_failed"))", accessToken: accessToken)
    }

    /// A credential as `credential.toJSON()` writes it: `id` and `rawId` the same base64url.
    private static func credential(_ id: Data, _ response: PasskeyCredential.Response, _ attachment: String?) -> PasskeyCredential {
        let id = Base64URL.encode(id)
        return PasskeyCredential(id: id, rawId: id, response: response, authenticatorAttachment: attachment)
    }

    /// `{}`: the options routes take no parameters.
    private struct EmptyBody: Encodable, Sendable {}
}
