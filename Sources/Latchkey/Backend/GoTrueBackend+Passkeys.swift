import Foundation
internal import LatchkeyWire

/// GoTrue's passkey routes (`/passkeys/*`), as the Latchkey server and Supabase serve them.
extension GoTrueBackend {
    public func passkeyRegistrationOptions(accessToken: String) async throws -> PasskeyChallenge<PasskeyCreationOptions> {
        let body = try await send("POST", "passkeys/registration/options", body: GoTruePasskeyWire.EmptyBody(), accessToken: accessToken)
        let answer = try decode(GoTruePasskeyWire.OptionsAnswer<GoTruePasskeyWire.CreationOptions>.self, from: body)
        return PasskeyChallenge(id: answer.challenge_id, expiresAt: Self.date(answer.expires_at), options: try Self.creationOptions(answer.options))
    }

    public func verifyPasskeyRegistration(accessToken: String, challengeID: String, registration: PasskeyRegistration) async throws -> Passkey {
        let id = GoTruePasskeyWire.text(registration.credentialID)
        let credential = GoTruePasskeyWire.Credential(
            id: id, rawId: id,
            response: GoTruePasskeyWire.AttestationResponse(
                clientDataJSON: GoTruePasskeyWire.text(registration.clientDataJSON),
                attestationObject: GoTruePasskeyWire.text(registration.attestationObject), transports: registration.transports),
            authenticatorAttachment: registration.attachment)
        let body = try await send(
            "POST", "passkeys/registration/verify", body: GoTruePasskeyWire.VerifyBody(challenge_id: challengeID, credential: credential),
            accessToken: accessToken)
        return Passkey(wire: try decode(GoTruePasskeyWire.PasskeyItem.self, from: body))
    }

    public func passkeySignInOptions() async throws -> PasskeyChallenge<PasskeyRequestOptions> {
        let body = try await send("POST", "passkeys/authentication/options", body: GoTruePasskeyWire.EmptyBody())
        let answer = try decode(GoTruePasskeyWire.OptionsAnswer<GoTruePasskeyWire.RequestOptions>.self, from: body)
        return PasskeyChallenge(id: answer.challenge_id, expiresAt: Self.date(answer.expires_at), options: try Self.requestOptions(answer.options))
    }

    public func verifyPasskeySignIn(challengeID: String, assertion: PasskeyAssertion) async throws -> Session {
        let id = GoTruePasskeyWire.text(assertion.credentialID)
        let credential = GoTruePasskeyWire.Credential(
            id: id, rawId: id,
            response: GoTruePasskeyWire.AssertionResponse(
                clientDataJSON: GoTruePasskeyWire.text(assertion.clientDataJSON),
                authenticatorData: GoTruePasskeyWire.text(assertion.authenticatorData), signature: GoTruePasskeyWire.text(assertion.signature),
                userHandle: assertion.userHandle.map(GoTruePasskeyWire.text)),
            authenticatorAttachment: assertion.attachment)
        let body = try await send(
            "POST", "passkeys/authentication/verify", body: GoTruePasskeyWire.VerifyBody(challenge_id: challengeID, credential: credential))
        return Session(wire: try decode(SessionResponse.self, from: body))
    }

    public func listPasskeys(accessToken: String) async throws -> [Passkey] {
        let body = try await send("GET", "passkeys", accessToken: accessToken)
        return try decode([GoTruePasskeyWire.PasskeyItem].self, from: body).map(Passkey.init(wire:))
    }

    public func renamePasskey(accessToken: String, passkeyID: String, friendlyName: String) async throws -> Passkey {
        let body = try await send(
            "PATCH", "passkeys/\(try Self.passkeySegment(passkeyID))", body: GoTruePasskeyWire.RenameBody(friendly_name: friendlyName),
            accessToken: accessToken)
        return Passkey(wire: try decode(GoTruePasskeyWire.PasskeyItem.self, from: body))
    }

    public func deletePasskey(accessToken: String, passkeyID: String) async throws {
        _ = try await send("DELETE", "passkeys/\(try Self.passkeySegment(passkeyID))", accessToken: accessToken)
    }

    // MARK: - Reading the options

    /// A passkey id as one path segment; anything else is the server's "Passkey not found".
    private static func passkeySegment(_ id: String) throws -> String {
        try pathSegment(id, notFound: "validation_failed")
    }

    private static func date(_ seconds: Int64?) -> Date? {
        seconds.map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    private static func bytes(_ text: String, _ field: String) throws -> Data {
        guard let data = GoTruePasskeyWire.bytes(text) else {
            throw BackendError.invalidResponse(reason: "the passkey options' \(field) is not base64url")
        }
        return data
    }

    /// The creation options the server sent, decoded; a missing relying party id or challenge,
    /// or a binary field that is not base64url, is an invalid response.
    static func creationOptions(_ wire: GoTruePasskeyWire.CreationOptions) throws -> PasskeyCreationOptions {
        guard let rpID = wire.rp.id, !rpID.isEmpty else {
            throw BackendError.invalidResponse(reason: "the passkey options name no relying party")
        }
        let challenge = try bytes(wire.challenge, "challenge")
        guard !challenge.isEmpty else { throw BackendError.invalidResponse(reason: "the passkey options carry no challenge") }
        let userName = wire.user.name ?? ""
        let selection = wire.authenticatorSelection
        return PasskeyCreationOptions(
            relyingParty: .init(id: rpID, name: wire.rp.name ?? rpID),
            user: .init(id: try bytes(wire.user.id, "user id"), name: userName, displayName: wire.user.displayName ?? userName),
            challenge: challenge,
            algorithms: (wire.pubKeyCredParams ?? []).filter { ($0.type ?? "public-key") == "public-key" }.map(\.alg),
            timeout: wire.timeout.map { $0 / 1000 },
            excludedCredentialIDs: try (wire.excludeCredentials ?? []).map { try bytes($0.id, "excluded credential") },
            userVerification: PasskeyUserVerification(wire: selection?.userVerification),
            requiresResidentKey: selection?.requireResidentKey ?? (selection?.residentKey.map { $0 != "discouraged" } ?? true),
            attestation: wire.attestation ?? "none")
    }

    /// The request options the server sent, decoded, as a ``PasskeyRequestOptions/Mediation/modal`` request.
    static func requestOptions(_ wire: GoTruePasskeyWire.RequestOptions) throws -> PasskeyRequestOptions {
        guard let rpID = wire.rpId, !rpID.isEmpty else {
            throw BackendError.invalidResponse(reason: "the passkey options name no relying party")
        }
        let challenge = try bytes(wire.challenge, "challenge")
        guard !challenge.isEmpty else { throw BackendError.invalidResponse(reason: "the passkey options carry no challenge") }
        return PasskeyRequestOptions(
            relyingPartyID: rpID, challenge: challenge, timeout: wire.timeout.map { $0 / 1000 },
            allowedCredentialIDs: try (wire.allowCredentials ?? []).map { try bytes($0.id, "allowed credential") },
            userVerification: PasskeyUserVerification(wire: wire.userVerification))
    }
}
