import Foundation
import Testing

@testable import LatchkeyServer

/// The OAuth server's clients, against every store.
extension AuthStoreConformanceTests {
    static func oauthClient(name: String, createdAt: Date) -> OAuthClientRecord {
        OAuthClientRecord(
            clientType: .confidential, authenticationMethod: .clientSecretPost, secretHash: "c2VjcmV0LWhhc2g",
            redirectURIs: ["https://app.example/cb", "myapp://cb"], grantTypes: OAuthClientRecord.grantTypes, name: name,
            clientURI: "https://app.example", logoURI: nil, registration: .dynamic, createdAt: createdAt)
    }

    @Test(
        "an OAuth client is read back whole, listed newest first, changed, and once deleted neither read nor listed", arguments: StoreKind.available)
    func oauthClientRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let older = Self.oauthClient(name: "Older", createdAt: t0)
            let newer = Self.oauthClient(name: "Newer", createdAt: t0.addingTimeInterval(60))
            try await store.insertOAuthClient(older)
            try await store.insertOAuthClient(newer)
            #expect(try await store.oauthClient(id: older.id) == older)
            #expect(try await store.oauthClients().map(\.id) == [newer.id, older.id])

            var changed = older
            changed.redirectURIs = ["https://app.example/other"]
            changed.updatedAt = t0.addingTimeInterval(120)
            #expect(try await store.updateOAuthClient(changed))
            #expect(try await store.oauthClient(id: older.id) == changed)

            var deleted = changed
            deleted.deletedAt = t0.addingTimeInterval(180)
            #expect(try await store.updateOAuthClient(deleted))
            #expect(try await store.oauthClient(id: older.id) == nil)
            #expect(try await store.oauthClients().map(\.id) == [newer.id])
            #expect(!(try await store.updateOAuthClient(changed)), "a deleted client is not changed again")
            #expect(!(try await store.updateOAuthClient(Self.oauthClient(name: "Missing", createdAt: t0))))
        }
    }
}
