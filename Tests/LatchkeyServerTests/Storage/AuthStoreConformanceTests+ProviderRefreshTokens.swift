import Foundation
import Testing

@testable import LatchkeyServer

/// Provider refresh tokens (Apple's, kept to revoke at account deletion), against every store.
extension AuthStoreConformanceTests {
    @Test(
        "a kept provider refresh token round-trips, a newer one for the identity replaces it, and it goes with the user",
        arguments: StoreKind.available)
    func providerRefreshTokens(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let ada = Self.user("ada@example.com")
            let bob = Self.user("bob@example.com")
            try await store.insertUser(ada, audit: nil)
            try await store.insertUser(bob, audit: nil)
            func record(_ user: UserRecord, _ subject: String, _ sealed: String, at offset: TimeInterval) -> ProviderRefreshTokenRecord {
                ProviderRefreshTokenRecord(
                    userID: user.id, provider: "apple", providerID: subject, clientID: "com.example.app", sealedToken: sealed,
                    createdAt: Self.t0.addingTimeInterval(offset))
            }
            try await store.keepProviderRefreshToken(record(ada, "001.ada", "v1:first", at: 0))
            try await store.keepProviderRefreshToken(record(bob, "002.bob", "v1:bob", at: 1))
            #expect(try await store.providerRefreshTokens(userID: ada.id) == [record(ada, "001.ada", "v1:first", at: 0)])
            try await store.keepProviderRefreshToken(record(ada, "001.ada", "v1:second", at: 10))
            #expect(try await store.providerRefreshTokens(userID: ada.id) == [record(ada, "001.ada", "v1:second", at: 10)])

            #expect(try await store.deleteUser(id: ada.id, audit: nil))
            #expect(try await store.providerRefreshTokens(userID: ada.id).isEmpty)
            #expect(try await store.providerRefreshTokens(userID: bob.id) == [record(bob, "002.bob", "v1:bob", at: 1)])
        }
    }
}
