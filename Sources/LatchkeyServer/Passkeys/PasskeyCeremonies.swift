import Foundation
import LatchkeyWire
import Logging

/// What registering a passkey and signing in with one share: the relying party, challenges
/// (issued, then spent by their first use), and reading the credential a browser sent.
struct PasskeyCeremonies: Sendable {
    let store: any AuthStore
    let clock: any ServerClock
    let settings: PasskeySettings
    let logger: Logger

    /// The relying party the settings describe (validated at start when passkeys are on).
    var relyingParty: RelyingParty {
        RelyingParty(id: settings.relyingPartyID ?? "", origins: Set(settings.origins))
    }

    /// Issues and stores a challenge of `kind` for `userID` (`nil` for a sign-in).
    func issueChallenge(_ kind: WebAuthnChallengeRecord.Kind, for userID: UUID?) async throws -> WebAuthnChallengeRecord {
        let now = clock.now()
        let challenge = WebAuthnChallengeRecord(
            kind: kind, userID: userID, challenge: Self.randomChallenge(), createdAt: now,
            expiresAt: now.addingTimeInterval(settings.challengeExpiry))
        try await store.saveWebAuthnChallenge(challenge, deletingExpiredBefore: now)
        return challenge
    }

    /// The options' `timeout`, in milliseconds: the challenge's lifetime.
    var timeoutMilliseconds: Int { Int(settings.challengeExpiry * 1000) }

    /// Spends the challenge a verify body names and gives it with the credential, checking the
    /// body in GoTrue's order: `challenge_id` present and a UUID, `credential` present, the
    /// challenge unspent, of this kind and user, and not expired.
    func spendChallenge(
        _ body: PasskeyVerifyWire, kind: WebAuthnChallengeRecord.Kind, userID: UUID?
    ) async throws -> (challenge: WebAuthnChallengeRecord, credential: JSONValue) {
        guard let text = body.challenge_id, !text.isEmpty else { throw AuthError.challengeIDRequired }
        guard let credential = body.credential, credential != .null else { throw AuthError.credentialRequired }
        guard let id = UUID(uuidString: text) else { throw AuthError.challengeIDNotUUID }
        guard let challenge = try await store.consumeWebAuthnChallenge(id: id, kind: kind, userID: userID) else {
            throw AuthError.webAuthnChallengeNotFound
        }
        guard clock.now() <= challenge.expiresAt else { throw AuthError.webAuthnChallengeExpired }
        return (challenge, credential)
    }

    /// The credential as the WebAuthn JSON serialization gives it; `refusal` (400
    /// `webauthn_verification_failed` by default) for anything else.
    static func parseCredential(_ value: JSONValue, refusal: AuthError = .invalidPasskeyCredential) throws(AuthError) -> PasskeyCredential {
        guard let credential = try? JSONDecoder().decode(PasskeyCredential.self, from: JSONEncoder().encode(value)),
            credential.type == "public-key"
        else { throw refusal }
        return credential
    }

    /// Bytes of base64url text as browsers and libraries send it: padding tolerated, as
    /// GoTrue's WebAuthn library does.
    static func bytes(_ text: String?) -> [UInt8]? {
        guard let text else { return nil }
        var trimmed = Substring(text)
        while trimmed.hasSuffix("=") { trimmed = trimmed.dropLast() }
        return Base64URL.decode(trimmed).map { Array($0) }
    }

    /// Logs why a ceremony was refused (the reason only, never the payload) and answers 400
    /// `webauthn_verification_failed`.
    func refused(_ reason: String, ceremony: String) -> AuthError {
        logger.info("passkey \(ceremony) refused", metadata: ["reason": "\(reason)"])
        return .passkeyVerificationFailed
    }

    /// 403 `insufficient_aal` when the user has a verified second factor and the session has
    /// not used it: with MFA on, passkeys are managed at `aal2` (GoTrue's rule).
    func requireManagementAssurance(_ signedIn: BearerAuthentication.Authenticated) async throws {
        try await requireManagementAssurance(of: signedIn.user, in: signedIn.session)
    }

    /// The same rule for `user` in `session`, whichever way the session was proven.
    func requireManagementAssurance(of user: UserRecord, in session: SessionRecord) async throws {
        guard session.aal < .aal2 else { return }
        if try await store.factors(userID: user.id).contains(where: { $0.status == .verified }) {
            throw AuthError.aal2RequiredForPasskeys
        }
    }

    /// The user handle a passkey of `user` carries: the UTF-8 bytes of its id, as GoTrue's.
    static func userHandle(of userID: UUID) -> [UInt8] { Array(userID.lowercasedString.utf8) }

    /// The relying party as creation options name it.
    var relyingPartyEntity: PublicKeyCredentialCreationOptionsJSON.RelyingParty {
        .init(id: settings.relyingPartyID ?? "", name: settings.displayName)
    }

    /// The account as creation options name it: its user handle, its address (or id), and its
    /// `name` metadata when it has one.
    static func userEntity(of user: UserRecord) -> PublicKeyCredentialCreationOptionsJSON.User {
        let name = user.email.isEmpty ? user.id.lowercasedString : user.email
        let displayName = if case .string(let text)? = user.userMetadata["name"], !text.isEmpty { text } else { name }
        return .init(id: Base64URL.encode(userHandle(of: user.id)), name: name, displayName: displayName)
    }

    /// 32 random bytes: a ceremony's challenge.
    static func randomChallenge() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// The body of both verify routes: the credential kept as JSON until the challenge is spent, so
/// a credential of the wrong shape is `webauthn_verification_failed`, as GoTrue answers it.
struct PasskeyVerifyWire: Decodable, Sendable {
    var challenge_id: String?
    var credential: JSONValue?
}

extension PasskeyResponse {
    init(_ passkey: PasskeyRecord) {
        self.init(
            id: passkey.id.lowercasedString, friendly_name: passkey.friendlyName.isEmpty ? nil : passkey.friendlyName,
            created_at: WireDate.format(passkey.createdAt), last_used_at: passkey.lastUsedAt.map(WireDate.format))
    }
}
