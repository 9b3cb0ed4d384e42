import Foundation
import HTTPTypes
import LatchkeyWire
import Logging

/// Signs people in with identities at external providers, links and unlinks identities: the
/// use case behind the ID-token grant, the browser sign-in's callback and `/user/identities`.
struct ProviderSignIn: ServiceDependent {
    let shared: ServiceDependencies
    let settings: ExternalProviderSettings
    let verifier: IDTokenVerifier
    let custom: CustomProviders
    let signupDisabled: Bool
    let autoconfirm: Bool

    /// The provider a request names, with its ID token's claims once verified.
    func verify(
        idToken: String, provider name: String?, issuer: String?, clientID: String?, nonce: String?, accessToken: String?
    ) async throws -> (provider: ResolvedProvider, data: ProviderUserData) {
        if let name, name.hasPrefix(CustomProviders.prefix) {
            let (provider, record, _) = try await custom.signInProvider(name)
            guard !record.isOAuth2 else {
                throw AuthError.validation("Custom OAuth2 provider \"\(name.prefix(80))\" has no ID tokens: sign in in the browser")
            }
            let claims = try await verifier.verify(idToken, for: provider, nonce: nonce, accessToken: accessToken)
            var data = ProviderUserData(claims: claims, style: .generic)
            data.map(record.attributeMapping, from: claims)
            return (provider, data)
        }
        let provider = try ResolvedProvider.resolve(
            provider: name, issuer: issuer, clientID: clientID, tokenIssuer: Self.unverifiedIssuer(of: idToken), in: settings)
        let claims = try await verifier.verify(idToken, for: provider, nonce: nonce, accessToken: accessToken)
        return (provider, ProviderUserData(claims: claims, style: provider.claims))
    }

    /// A session for the person `data` describes at `provider`: their account, an account
    /// their verified address links to, or a new one (see ``ProviderSignInPlan``).
    func signIn(_ provider: ResolvedProvider, _ data: ProviderUserData, ipAddress: String) async throws -> SessionResponse {
        let user = try await account(provider: provider.name, data, emailOptional: provider.emailOptional, ipAddress: ipAddress)
        return try await sessions.start(for: user, method: "oauth", ipAddress: ipAddress, provider: provider.name)
    }

    /// Links the identity `data` describes to the signed-in `user`, and starts a session for
    /// the user (as GoTrue's ID-token grant with `link_identity` does).
    func link(_ provider: ResolvedProvider, _ data: ProviderUserData, to userID: UUID, ipAddress: String) async throws -> SessionResponse {
        let user = try await linkedAccount(provider: provider.name, data, emailOptional: provider.emailOptional, to: userID, ipAddress: ipAddress)
        return try await sessions.start(for: user, method: "oauth", ipAddress: ipAddress, provider: provider.name)
    }

    /// The account of the person `data` describes at `provider`, made or linked as
    /// ``ProviderSignInPlan`` decides; no session yet.
    func account(provider: String, _ data: ProviderUserData, emailOptional: Bool, ipAddress: String) async throws -> UserRecord {
        let context = context(provider: provider, data, emailOptional: emailOptional, ipAddress: ipAddress)
        let lookup = ProviderSignInPlan.lookup(provider: provider, data: data)
        let outcome: ProviderSignInPlan.Outcome
        if let beforeUserCreated {
            outcome = try await signIn(lookup, context, asking: beforeUserCreated)
        } else {
            outcome = try await store.changeIdentities(lookup) { state in try ProviderSignInPlan.signIn(state, context) }
        }
        switch outcome {
        case .needsVerification(let error):
            throw error
        case .signedIn(let user, let created):
            logger.info(
                created ? "account created with a provider" : "signed in with a provider",
                metadata: ["user_id": "\(user.id)", "provider": "\(provider)"])
            if created, let afterUserCreated { try await afterUserCreated.notify(user) }
            return user
        }
    }

    /// The signed-in user `userID` with the identity `data` describes linked; no session yet.
    func linkedAccount(
        provider: String, _ data: ProviderUserData, emailOptional: Bool, to userID: UUID, ipAddress: String
    ) async throws
        -> UserRecord
    {
        guard settings.manualLinkingEnabled else { throw AuthError.manualLinkingDisabled }
        let context = context(provider: provider, data, emailOptional: emailOptional, ipAddress: ipAddress)
        var lookup = ProviderSignInPlan.lookup(provider: provider, data: data)
        lookup.userID = userID
        let user = try await store.changeIdentities(lookup) { state in try ProviderSignInPlan.link(state, context) }
        logger.info("identity linked", metadata: ["user_id": "\(user.id)", "provider": "\(provider)"])
        notices.send(.identityLinked(provider: provider), about: user)
        return user
    }

    /// The sign-in with the before user created hook on: a sign-in that would make an account
    /// is rolled back, the account it would make sent to the hook, and the sign-in run again
    /// once the hook agrees (GoTrue also asks before its transaction). A refusal stores nothing.
    private func signIn(
        _ lookup: IdentityLookup, _ context: ProviderSignInPlan.Context, asking hook: BeforeUserCreatedHook
    ) async throws
        -> ProviderSignInPlan.Outcome
    {
        do {
            return try await store.changeIdentities(lookup) { state in
                let plan = try ProviderSignInPlan.signIn(state, context)
                if case .signedIn(let user, created: true) = plan.result { throw NewAccount(user: user) }
                return plan
            }
        } catch let pending as NewAccount {
            try await hook.check(pending.user)
            return try await store.changeIdentities(lookup) { state in try ProviderSignInPlan.signIn(state, context) }
        }
    }

    /// The account a sign-in would make, which rolls its transaction back.
    private struct NewAccount: Error {
        var user: UserRecord
    }

    private func context(provider: String, _ data: ProviderUserData, emailOptional: Bool, ipAddress: String) -> ProviderSignInPlan.Context {
        ProviderSignInPlan.Context(
            provider: provider, data: data, emailOptional: emailOptional, signupDisabled: signupDisabled, autoconfirm: autoconfirm,
            ipAddress: ipAddress, now: clock.now())
    }

    /// `DELETE /user/identities/{identity_id}`.
    func unlink(identityID: UUID, from userID: UUID, ipAddress: String) async throws {
        guard settings.manualLinkingEnabled else { throw AuthError.manualLinkingDisabled }
        let now = clock.now()
        let (user, provider) = try await store.changeIdentities(IdentityLookup(userID: userID)) {
            state throws -> IdentityPlan<(UserRecord, String)> in
            let plan = try ProviderSignInPlan.unlink(state, identityID: identityID, ipAddress: ipAddress, now: now)
            let provider = state.userIdentities.first { $0.id == identityID }?.provider ?? ""
            return IdentityPlan(changes: plan.changes, result: (plan.result, provider))
        }
        notices.send(.identityUnlinked(provider: provider), about: user)
    }

    /// The `iss` of a token not yet verified: only to tell which of Apple's issuers it names.
    static func unverifiedIssuer(of token: String) -> String? {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(utf8: parts[1]),
            let claims = try? JSONDecoder().decode([String: JSONValue].self, from: payload)
        else { return nil }
        return claims["iss"]?.stringValue
    }
}
