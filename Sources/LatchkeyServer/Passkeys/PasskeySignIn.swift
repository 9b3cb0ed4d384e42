import Foundation
import LatchkeyWire

/// `POST /passkeys/authentication/options` and `/verify`: signing in with a discoverable
/// passkey, no address typed (GoTrue's `PasskeyAuthenticationOptions` and
/// `PasskeyAuthenticationVerify`).
///
/// The authenticator says which credential it used and whose it is (the user handle); the
/// server finds the passkey by credential id, checks that it belongs to that account, verifies
/// the signature with the stored key, and refuses a signature counter that did not advance (a
/// sign the authenticator was cloned). Every refusal of the credential is the same answer, so
/// a response does not tell whether a credential or an account exists.
struct PasskeySignIn: Sendable {
    let ceremonies: PasskeyCeremonies
    let limits: RateLimits
    let sessions: SessionIssuer

    func options(ipAddress: String) async throws -> PasskeyOptionsResponse<PublicKeyCredentialRequestOptionsJSON> {
        try await limits.admitPasskeySignIn(from: ipAddress)
        let challenge = try await ceremonies.issueChallenge(.authentication, for: nil)
        let options = PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URL.encode(challenge.challenge), timeout: ceremonies.timeoutMilliseconds, rpId: ceremonies.relyingParty.id,
            userVerification: "preferred")
        return PasskeyOptionsResponse(
            challenge_id: challenge.id.lowercasedString, options: options, expires_at: Int(challenge.expiresAt.timeIntervalSince1970))
    }

    func verify(_ body: PasskeyVerifyWire, ipAddress: String) async throws -> SessionResponse {
        let user = try await authenticate(body)
        return try await sessions.start(for: user, method: "passkey", ipAddress: ipAddress, provider: "passkey")
    }

    /// The account whose passkey signed the assertion in `body`, its challenge spent and the
    /// passkey's counter and last use recorded; what follows (a session, or an authorization
    /// code for a PKCE app) is the caller's.
    func authenticate(_ body: PasskeyVerifyWire) async throws -> UserRecord {
        let (challenge, value) = try await ceremonies.spendChallenge(body, kind: .authentication, userID: nil)
        let credential = try PasskeyCeremonies.parseCredential(value)
        let response = credential.response
        guard let clientData = PasskeyCeremonies.bytes(response.clientDataJSON),
            let authenticatorData = PasskeyCeremonies.bytes(response.authenticatorData),
            let signature = PasskeyCeremonies.bytes(response.signature),
            let rawID = PasskeyCeremonies.bytes(credential.rawId ?? credential.id), PasskeyCeremonies.bytes(credential.id) == rawID
        else { throw AuthError.invalidPasskeyCredential }
        guard let userHandle = PasskeyCeremonies.bytes(response.userHandle), !userHandle.isEmpty else {
            throw ceremonies.refused("no user handle", ceremony: "sign-in")
        }
        guard let stored = try await ceremonies.store.passkey(credentialID: rawID) else {
            throw ceremonies.refused("unknown credential", ceremony: "sign-in")
        }
        guard constantTimeEquals(userHandle, PasskeyCeremonies.userHandle(of: stored.userID)) else {
            throw ceremonies.refused("user handle is not the credential's account", ceremony: "sign-in")
        }

        let outcome: AssertionOutcome
        do {
            outcome = try ceremonies.relyingParty.verifyAssertion(
                AssertionResponse(
                    credentialID: rawID, clientDataJSON: clientData, authenticatorData: authenticatorData, signature: signature,
                    userHandle: userHandle),
                challenge: challenge.challenge,
                credential: StoredCredential(
                    credentialID: stored.credentialID, publicKey: stored.publicKey, signCount: stored.signCount,
                    backupEligible: stored.backupEligible),
                requireUserVerification: false)
        } catch {
            throw ceremonies.refused("\(error)", ceremony: "sign-in")
        }
        guard case .verified(let assertion) = outcome else {
            throw ceremonies.refused("signature counter did not advance", ceremony: "sign-in")
        }

        guard let user = try await ceremonies.store.user(id: stored.userID) else {
            throw ceremonies.refused("account gone", ceremony: "sign-in")
        }
        if !user.email.isEmpty, user.emailConfirmedAt == nil { throw AuthError.passkeyEmailNotConfirmed }
        guard !user.isBanned(at: ceremonies.clock.now()) else { throw AuthError.userBannedForbidden }

        // The counter is checked again under the user's lock: of two assertions carrying the
        // same counter, one signs in.
        let now = ceremonies.clock.now()
        try await ceremonies.store.changePasskeys(of: user.id) { current in
            guard var passkey = current.first(where: { $0.id == stored.id }) else { throw AuthError.passkeyVerificationFailed }
            if (assertion.signCount != 0 || passkey.signCount != 0) && assertion.signCount <= passkey.signCount {
                throw AuthError.passkeyVerificationFailed
            }
            passkey.signCount = assertion.signCount
            passkey.backedUp = assertion.backedUp
            passkey.lastUsedAt = now
            passkey.updatedAt = now
            return PasskeyPlan(changes: [.update(passkey)], result: ())
        }
        return user
    }
}
