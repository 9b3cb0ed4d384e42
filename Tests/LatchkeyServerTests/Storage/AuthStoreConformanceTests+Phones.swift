import Foundation
import Testing

@testable import LatchkeyServer

extension AuthStoreConformanceTests {
    @Test("a phone number round-trips with its confirmation and pending change, and finds its user", arguments: StoreKind.available)
    func phoneRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var user = Self.user("ada@example.com")
            user.phone = "15555550100"
            user.phoneConfirmedAt = Self.t0.addingTimeInterval(-30)
            user.phoneChange = "15555550101"
            user.phoneChangeSentAt = Self.t0.addingTimeInterval(-10)
            try await store.insertUser(user, audit: nil)
            #expect(try await store.user(id: user.id) == user)
            #expect(try await store.user(phone: "15555550100") == user)
            #expect(try await store.user(phone: "15555550101") == nil)
            #expect(try await store.user(phone: "") == nil)

            user.phone = "15555550101"
            user.phoneChange = nil
            user.phoneChangeSentAt = nil
            try await store.updateUser(user, audit: nil)
            #expect(try await store.user(phone: "15555550101") == user)
            #expect(try await store.user(phone: "15555550100") == nil)
        }
    }

    @Test("a taken phone number is duplicatePhone, on insert and on update; users without one never clash", arguments: StoreKind.available)
    func duplicatePhone(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var ada = Self.user("ada@example.com")
            ada.phone = "15555550100"
            try await store.insertUser(ada, audit: nil)
            // Many users without a number: the empty number is stored as no number.
            try await store.insertUser(Self.user("bob@example.com"), audit: nil)
            var grace = Self.user("grace@example.com")
            try await store.insertUser(grace, audit: nil)

            var clash = Self.user("clash@example.com")
            clash.phone = "15555550100"
            await #expect(throws: StoreError.duplicatePhone) { try await store.insertUser(clash, audit: nil) }
            #expect(try await store.user(email: "clash@example.com") == nil)

            grace.phone = "15555550100"
            await #expect(throws: StoreError.duplicatePhone) { try await store.updateUser(grace, audit: nil) }
            #expect(try await store.user(id: grace.id)?.phone == "")
        }
    }
}
