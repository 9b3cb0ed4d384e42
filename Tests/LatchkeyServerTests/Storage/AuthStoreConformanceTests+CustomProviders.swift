import Foundation
import Testing

@testable import LatchkeyServer

/// Custom providers and browser sign-in flows, against every store.
extension AuthStoreConformanceTests {
    static func customProvider(_ identifier: String, name: String = "Acme") -> CustomProviderRecord {
        CustomProviderRecord(
            identifier: identifier, name: name, clientID: "acme-app", sealedClientSecret: "v1:sealed", acceptableClientIDs: ["acme-ios"],
            scopes: ["email"], pkceEnabled: true, skipNonceCheck: false, emailOptional: false, enabled: true, issuer: "https://idp.example",
            attributeMapping: ["nickname": "handle"], createdAt: t0, updatedAt: t0)
    }

    @Test("a custom provider is added once, read back whole, changed and deleted", arguments: StoreKind.available)
    func customProviderRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let acme = Self.customProvider("custom:acme")
            let added = try await store.insertCustomProvider(acme)
            let addedTwice = try await store.insertCustomProvider(Self.customProvider("custom:acme", name: "Other"))
            let addedBeta = try await store.insertCustomProvider(Self.customProvider("custom:beta"))
            #expect(added && !addedTwice && addedBeta)
            let read = try await store.customProvider(identifier: "custom:acme")
            #expect(read == acme)
            let all = try await store.customProviders()
            #expect(all.map(\.identifier) == ["custom:acme", "custom:beta"])
            var changed = acme
            changed.name = "Acme Corp"
            let updated = try await store.updateCustomProvider(changed)
            let readAgain = try await store.customProvider(identifier: "custom:acme")
            #expect(updated && readAgain?.name == "Acme Corp")
            let updatedMissing = try await store.updateCustomProvider(Self.customProvider("custom:nope"))
            #expect(!updatedMissing)
            let deleted = try await store.deleteCustomProvider(identifier: "custom:acme")
            let deletedTwice = try await store.deleteCustomProvider(identifier: "custom:acme")
            let gone = try await store.customProvider(identifier: "custom:acme")
            #expect(deleted && !deletedTwice && gone == nil)
        }
    }

    @Test("a browser flow is spent by its first callback; abandoned ones go when a new one starts", arguments: StoreKind.available)
    func providerFlowSpentOnce(kind: StoreKind) async throws {
        try await kind.withStore { store in
            func flow(at date: Date) -> ProviderFlow {
                ProviderFlow(
                    provider: "keycloak", redirectTo: "https://app.example/cb", codeChallenge: String(repeating: "c", count: 43),
                    codeChallengeMethod: .s256, linkingUserID: UUID(), providerVerifier: "verifier", nonce: "nonce", browserBindingHash: "hash",
                    createdAt: date)
            }
            let old = flow(at: Self.t0)
            try await store.saveProviderFlow(old, deletingStartedBefore: Self.t0.addingTimeInterval(-600))
            let current = flow(at: Self.t0.addingTimeInterval(700))
            try await store.saveProviderFlow(current, deletingStartedBefore: Self.t0.addingTimeInterval(100))
            #expect(try await store.consumeProviderFlow(id: old.id) == nil, "the abandoned flow was deleted")
            let read = try #require(try await store.consumeProviderFlow(id: current.id))
            #expect(read == current)
            #expect(try await store.consumeProviderFlow(id: current.id) == nil, "spent")
        }
    }
}
