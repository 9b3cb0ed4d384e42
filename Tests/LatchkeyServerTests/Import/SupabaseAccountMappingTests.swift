import Foundation
import LatchkeyWire
import Testing

@testable import LatchkeyServer

/// How GoTrue's rows become Latchkey's (``SupabaseAccountMapping``), without a database: what is
/// kept, what is refused or left out and why, and that a re-run of an unchanged row is unchanged.
@Suite("Supabase account mapping")
struct SupabaseAccountMappingTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)
    static let id = UUID(uuidString: "0a11ce00-0000-4000-8000-000000000001")!
    static let bcrypt = "$2a$04$abcdefghijklmnopqrstuuHZDkZ1ZSLNRh0xBf6YrTBb6l9n8eHli"

    static func rows(_ change: (inout SupabaseUserRow) -> Void = { _ in }, identities: [SupabaseIdentityRow] = []) -> SupabaseAccountRows {
        var user = SupabaseUserRow(
            id: id, email: "Alice@Example.com", encryptedPassword: bcrypt, emailConfirmedAt: Date(timeIntervalSince1970: 1_800_000_000.123456),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.654321), rawUserMetaData: #"{"full_name": "Alice"}"#,
            rawAppMetaData: #"{"provider": "email", "providers": ["email"], "plan": "pro"}"#)
        change(&user)
        return SupabaseAccountRows(user: user, identities: identities)
    }

    @Test("a user keeps id, address, bcrypt hash, times and metadata; the email identity stays on the user")
    func kept() throws {
        let github = SupabaseIdentityRow(userID: Self.id, provider: "github", providerID: "4242", identityData: #"{"sub": "4242", "email": "A@B.com"}"#)
        let email = SupabaseIdentityRow(userID: Self.id, provider: "email", providerID: Self.id.lowercasedString, identityData: "{}")
        let account = try SupabaseAccountMapping.account(Self.rows(identities: [email, github]), now: Self.now)
        #expect(account.user.id == Self.id && account.user.email == "alice@example.com" && account.user.passwordHash == Self.bcrypt)
        #expect(account.user.userMetadata["full_name"] == .string("Alice") && account.user.appMetadata["plan"] == .string("pro"))
        #expect(account.user.providers == ["email", "github"])
        #expect(account.identities.map(\.provider) == ["github"] && account.identities.first?.email == "a@b.com")
        #expect(account.user.createdAt.timeIntervalSince1970 == 1_700_000_000.654, "to the millisecond, as a store gives it back")
        #expect(account.leftOut.isEmpty)

        // A re-run over what the first run stored changes nothing.
        let state = IdentityState(user: account.user, userIdentities: account.identities)
        #expect(try ImportPlan.plan(account, state: state, now: Self.now).result == .unchanged)
        // PostgreSQL gives a time back with microseconds, a little off the millisecond written.
        var readBack = account.user
        readBack.createdAt = readBack.createdAt.addingTimeInterval(-0.000_001)
        readBack.emailConfirmedAt = readBack.emailConfirmedAt?.addingTimeInterval(0.000_001)
        let offState = IdentityState(user: readBack, userIdentities: account.identities)
        #expect(try ImportPlan.plan(account, state: offState, now: Self.now).result == .unchanged)
    }

    @Test("deleted, phone-only and address-less users are refused; an argon2 hash is left out")
    func refused() throws {
        #expect(throws: ImportRefusal("deleted at the source (deleted_at is set)")) {
            try SupabaseAccountMapping.account(Self.rows { $0.deletedAt = Self.now }, now: Self.now)
        }
        #expect(throws: ImportRefusal(ImportRefusal.phoneOnly)) {
            try SupabaseAccountMapping.account(Self.rows { $0.email = nil; $0.phone = "15555550100" }, now: Self.now)
        }
        #expect(throws: ImportRefusal("raw_user_meta_data is not a JSON object")) {
            try SupabaseAccountMapping.account(Self.rows { $0.rawUserMetaData = "[1]" }, now: Self.now)
        }
        let argon = try SupabaseAccountMapping.account(Self.rows { $0.encryptedPassword = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA" }, now: Self.now)
        #expect(argon.user.passwordHash == nil && argon.leftOut.count == 1 && !argon.leftOut[0].contains("c2FsdA"))
        let anonymous = try SupabaseAccountMapping.account(Self.rows { $0.email = nil; $0.isAnonymous = true }, now: Self.now)
        #expect(anonymous.user.isAnonymous && anonymous.user.email.isEmpty)
    }

    @Test("verified TOTP factors with a plain secret are taken; encrypted, phone and unverified ones are not")
    func factors() throws {
        let row = SupabaseFactorRow(
            id: UUID(), userID: Self.id, friendlyName: nil, factorType: "totp", status: "verified", secret: "JBSWY3DPEHPK3PXP", createdAt: Self.now,
            updatedAt: Self.now)
        #expect(try SupabaseAccountMapping.factor(row)?.secret == Array("Hello!\u{DE}\u{AD}\u{BE}\u{EF}".unicodeScalars.map { UInt8($0.value) }))
        var unverified = row
        unverified.status = "unverified"
        #expect(try SupabaseAccountMapping.factor(unverified) == nil)
        var encrypted = row
        encrypted.secret = #"{"key_id":"k","alg":"aes-gcm-hkdf","nonce":"n","data":"d"}"#
        #expect(throws: ImportRefusal.self) { try SupabaseAccountMapping.factor(encrypted) }
        var phone = row
        phone.factorType = "phone"
        #expect(throws: ImportRefusal("a phone factor (only verified TOTP factors are imported)")) { try SupabaseAccountMapping.factor(phone) }
    }

    @Test("a live session keeps its id, level and methods; a signed-token session is refused, a dead one skipped")
    func sessions() throws {
        let factorID = UUID()
        let row = SupabaseSessionRow(
            id: UUID(), userID: Self.id, createdAt: Self.now, aal: "aal2", factorID: factorID, refreshToken: "v1token",
            methods: [AuthenticationMethodReference(method: "oauth", timestamp: 1), AuthenticationMethodReference(method: "totp", timestamp: 2)])
        let (session, token) = try #require(try SupabaseAccountMapping.session(row, factorIDs: [factorID], now: Self.now))
        #expect(session.id == row.id && session.aal == .aal2 && session.factorID == factorID && token == "v1token")
        #expect(session.authMethod == "oauth" && session.verifiedMethods.map(\.method) == ["totp"])
        #expect(try SupabaseAccountMapping.session(row, factorIDs: [], now: Self.now)?.session.factorID == nil)
        var ended = row
        ended.notAfter = Self.now
        #expect(try SupabaseAccountMapping.session(ended, factorIDs: [], now: Self.now) == nil)
        var revoked = row
        revoked.refreshToken = nil
        #expect(try SupabaseAccountMapping.session(revoked, factorIDs: [], now: Self.now) == nil)
        var signed = row
        signed.signsRefreshTokens = true
        #expect(throws: ImportRefusal.self) { try SupabaseAccountMapping.session(signed, factorIDs: [], now: Self.now) }
    }
}
