import Foundation
import Testing

@testable import LatchkeyServer

extension AuthStoreConformanceTests {
    @Test("a taken id is duplicateUserID, whatever the email, and the first user is untouched", arguments: StoreKind.available)
    func duplicateUserID(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let ada = Self.user("ada@example.com")
            try await store.insertUser(ada, audit: nil)
            var copy = Self.user("grace@example.com")
            copy.id = ada.id
            await #expect(throws: StoreError.duplicateUserID) { try await store.insertUser(copy, audit: Self.audit(.userSignedUp, copy)) }
            #expect(try await store.user(id: ada.id) == ada)
            #expect(try await store.user(email: "grace@example.com") == nil)
            #expect(try await store.auditEntries(offset: 0, limit: 10).isEmpty, "the refused insert wrote no audit entry")
        }
    }
}
