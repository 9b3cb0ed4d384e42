import Foundation
import LatchkeyWire
import Testing

@testable import LatchkeyServer

/// Identities at external providers, against every store: what a plan reads, what it writes,
/// and that concurrent first sign-ins of one person make one account.
extension AuthStoreConformanceTests {
    static func providerContext(_ subject: String, email: String?, verified: Bool = true, at now: Date = t0) -> ProviderSignInPlan.Context {
        var claims: [String: JSONValue] = ["iss": .string("https://idp.example"), "sub": .string(subject)]
        if let email {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(verified)
        }
        return ProviderSignInPlan.Context(
            provider: "keycloak", data: ProviderUserData(claims: claims, style: .generic), emailOptional: false, signupDisabled: false,
            autoconfirm: false, ipAddress: "192.0.2.1", now: now)
    }

    func providerSignIn(_ store: any AuthStore, _ context: ProviderSignInPlan.Context) async throws -> ProviderSignInPlan.Outcome {
        try await store.changeIdentities(ProviderSignInPlan.lookup(provider: context.provider, data: context.data)) { state in
            try ProviderSignInPlan.signIn(state, context)
        }
    }

    @Test("an identity round-trips with its user; the next sign-in finds it; a verified address links", arguments: StoreKind.available)
    func identityRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            guard case .signedIn(let user, true) = try await providerSignIn(store, Self.providerContext("sub-1", email: "ada@example.com"))
            else {
                Issue.record("no account made")
                return
            }
            let identities = try await store.identities(userID: user.id)
            #expect(identities.count == 1)
            #expect(identities.first?.subject == "sub-1")
            #expect(identities.first?.email == "ada@example.com")
            #expect(identities.first?.identityData["email_verified"] == .bool(true))
            #expect(try await store.user(id: user.id)?.providers == ["keycloak"])

            let again = try await providerSignIn(store, Self.providerContext("sub-1", email: "ada@example.com", at: t0.addingTimeInterval(60)))
            #expect(again == .signedIn(try #require(try await store.user(id: user.id)), created: false))
            #expect(try await store.identities(userID: user.id).first?.lastSignInAt == t0.addingTimeInterval(60))

            // A second provider subject with the same verified address joins the account (later, so
            // the order by creation is known).
            guard
                case .signedIn(let linked, false) = try await providerSignIn(
                    store, Self.providerContext("sub-2", email: "ada@example.com", at: t0.addingTimeInterval(120)))
            else {
                Issue.record("not linked")
                return
            }
            #expect(linked.id == user.id)
            #expect(try await store.identities(userID: user.id).map(\.subject) == ["sub-1", "sub-2"])
        }
    }

    @Test("a plan that throws writes nothing; unlinking deletes one identity and keeps the others", arguments: StoreKind.available)
    func throwingPlanAndUnlink(kind: StoreKind) async throws {
        try await kind.withStore { store in
            guard case .signedIn(let user, _) = try await providerSignIn(store, Self.providerContext("a", email: "grace@example.com"))
            else { return }
            _ = try await providerSignIn(store, Self.providerContext("b", email: "grace@example.com"))
            await #expect(throws: AuthError.self) {
                try await store.changeIdentities(IdentityLookup(userID: user.id)) { state -> IdentityPlan<Void> in
                    _ = state
                    throw AuthError.unexpected
                }
            }
            let identities = try await store.identities(userID: user.id).sorted { $0.subject < $1.subject }
            #expect(identities.count == 2)
            _ = try await store.changeIdentities(IdentityLookup(userID: user.id)) { state in
                try ProviderSignInPlan.unlink(state, identityID: identities[0].id, ipAddress: "192.0.2.1", now: t0)
            }
            #expect(try await store.identities(userID: user.id).map(\.subject) == ["b"])
            await #expect(throws: AuthError.self) {
                try await store.changeIdentities(IdentityLookup(userID: user.id)) { state in
                    try ProviderSignInPlan.unlink(state, identityID: identities[1].id, ipAddress: "192.0.2.1", now: t0)
                }
            }
            #expect(try await store.identities(userID: user.id).count == 1, "the last identity stays")
        }
    }

    @Test("concurrent first sign-ins of one person make one account", arguments: StoreKind.available)
    func concurrentFirstSignIns(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let outcomes = await withTaskGroup(of: UUID?.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        guard case .signedIn(let user, _)? = try? await providerSignIn(store, Self.providerContext("same", email: "same@example.com"))
                        else { return nil }
                        return user.id
                    }
                }
                return await group.reduce(into: [UUID?]()) { $0.append($1) }
            }
            let users = Set(outcomes.compactMap { $0 })
            #expect(users.count == 1, "one account for one person: \(outcomes)")
            let (listed, total) = try await store.listUsers(offset: 0, limit: 10)
            #expect(total == 1)
            #expect(try await store.identities(userID: try #require(listed.first).id).count == 1)
        }
    }
}
