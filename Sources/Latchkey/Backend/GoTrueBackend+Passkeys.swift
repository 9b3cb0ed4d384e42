import Foundation
internal import LatchkeyWire

/// GoTrue's passkey routes (`/passkeys/*`) and WebAuthn factors (`/factors` with `webauthn`), as
/// the Latchkey server and Supabase serve them. The bodies are `LatchkeyWire`'s, which the server
/// writes and reads too.
extension GoTrueBackend {
    public func passkeyRegistrationOptions(accessToken: String) async throws -> PasskeyChallenge<PasskeyCreationOptions> {
        let body = try await send("POST", "passkeys/registration/options", body: EmptyBody(), accessToken: accessToken)
        let answer = try decode(PasskeyOptionsResponse<PublicKeyCredentialCreationOptionsJSON>.self, from: body)
        return PasskeyChallenge(
            id: answer.challenge_id, expiresAt: Date(timeIntervalSince1970: TimeInterval(answer.expires_at)),
            options: try PasskeyCreationOptions(wire: answer.options))
    }

    public func verifyPasskeyRegistration(accessToken: String, challengeID: String, registration: PasskeyRegistration) async throws -> Passkey {
        let body = try await send(
            "POST", "passkeys/registration/verify", body: PasskeyVerifyBody(challenge_id: challengeID, credential: Self.credential(registration)),
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
        let body = try await send(
            "POST", "passkeys/authentication/verify", body: PasskeyVerifyBody(challenge_id: challengeID, credential: Self.credential(assertion)))
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
    // MARK: WebAuthn factors

    public func enrollWebAuthnFactor(accessToken: String, friendlyName: String?) async throws -> Factor {
        let body = try await send(
            "POST", "factors", body: EnrollFactorBody(factor_type: "webauthn", friendly_name: friendlyName), accessToken: accessToken)
        let response = try decode(EnrollFactorResponse.self, from: body)
        guard response.type == "webauthn" else { throw BackendError.invalidResponse(reason: "the enrollment is not a WebAuthn factor") }
        return Factor(
            id: response.id, friendlyName: response.friendly_name.isEmpty ? nil : response.friendly_name, factorType: response.type,
            status: .unverified)
    }

    public func verifyWebAuthnFactor(
        accessToken: String, factorID: String, challengeID: String, response: WebAuthnFactorResponse
    ) async throws -> Session {
        let (type, credential) =
            switch response {
            case .registration(let registration): ("create", Self.credential(registration))
            case .assertion(let assertion): ("request", Self.credential(assertion))
            }
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(credential))
        let body = try await send(
            "POST", "factors/\(try Self.pathSegment(factorID))/verify",
            body: VerifyFactorBody(challenge_id: challengeID, webauthn: .init(type: type, credential_response: json)), accessToken: accessToken)
        return Session(wire: try decode(SessionResponse.self, from: body))
    }

    // MARK: Credentials in JSON

    /// A new credential as `credential.toJSON()` gives it.
    private static func credential(_ registration: PasskeyRegistration) -> PasskeyCredential {
        credential(
            registration.credentialID,
            PasskeyCredential.Response(
                clientDataJSON: Base64URL.encode(registration.clientDataJSON),
                attestationObject: Base64URL.encode(registration.attestationObject), transports: registration.transports),
            registration.attachment)
    }

    /// An assertion as `credential.toJSON()` gives it.
    private static func credential(_ assertion: PasskeyAssertion) -> PasskeyCredential {
        credential(
            assertion.credentialID,
            PasskeyCredential.Response(
                clientDataJSON: Base64URL.encode(assertion.clientDataJSON), authenticatorData: Base64URL.encode(assertion.authenticatorData),
                signature: Base64URL.encode(assertion.signature), userHandle: assertion.userHandle.map(Base64URL.encode)),
            assertion.attachment)
    }

    private static func credential(_ id: Data, _ response: PasskeyCredential.Response, _ attachment: String?) -> PasskeyCredential {
        let id = Base64URL.encode(id)
        return PasskeyCredential(id: id, rawId: id, response: response, authenticatorAttachment: attachment)
    }

    /// `{}`: the options routes take no parameters.
    private struct EmptyBody: Encodable, Sendable {}
}
