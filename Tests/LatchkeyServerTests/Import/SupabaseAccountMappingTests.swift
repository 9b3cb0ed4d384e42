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
        let github = SupabaseIdentityRow(
            userID: Self.id, provider: "github", providerID: "4242", identityData: #"{"sub": "4242", "email": "A@B.com"}"#)
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

    @Test(
        "deleted users, users with neither address nor number and numbers that are not E.164 are refused; an argon2d hash is left out, an argon2id one kept"
    )
    func refused() throws {
        #expect(throws: ImportRefusal("deleted at the source (deleted_at is set)")) {
            try SupabaseAccountMapping.account(Self.rows { $0.deletedAt = Self.now }, now: Self.now)
        }
        #expect(throws: ImportRefusal("no email address or phone number")) {
            try SupabaseAccountMapping.account(Self.rows { $0.email = nil }, now: Self.now)
        }
        #expect(throws: ImportRefusal("the phone number is not valid (E.164)")) {
            try SupabaseAccountMapping.account(
                Self.rows {
                    $0.email = nil
                    $0.phone = "0123"
                }, now: Self.now)
        }
        #expect(throws: ImportRefusal("raw_user_meta_data is not a JSON object")) {
            try SupabaseAccountMapping.account(Self.rows { $0.rawUserMetaData = "[1]" }, now: Self.now)
        }
        let argon = try SupabaseAccountMapping.account(
            Self.rows { $0.encryptedPassword = "$argon2d$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$aGFzaA" }, now: Self.now)
        #expect(argon.user.passwordHash == nil && argon.leftOut.count == 1 && !argon.leftOut[0].contains("c29tZXNhbHQ"))
        #expect(argon.leftOut.first?.contains("argon2d") == true, "the report says why: \(argon.leftOut)")
        let costly = try SupabaseAccountMapping.account(
            Self.rows { $0.encryptedPassword = "$argon2id$v=19$m=4194304,t=3,p=4$c29tZXNhbHQ$aGFzaGhhc2g" }, now: Self.now)
        #expect(costly.user.passwordHash == nil && costly.leftOut.first?.contains("limit") == true, "\(costly.leftOut)")
        let kept = "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$aGFzaGhhc2g"
        #expect(try SupabaseAccountMapping.account(Self.rows { $0.encryptedPassword = kept }, now: Self.now).user.passwordHash == kept)
        let anonymous = try SupabaseAccountMapping.account(
            Self.rows {
                $0.email = nil
                $0.isAnonymous = true
            }, now: Self.now)
        #expect(anonymous.user.isAnonymous && anonymous.user.email.isEmpty)
    }

    @Test("a phone-only user keeps the number, its confirmation and the phone identity; a re-run is unchanged and keeps an address added here")
    func phoneOnly() throws {
        let identity = SupabaseIdentityRow(userID: Self.id, provider: "phone", providerID: Self.id.lowercasedString, identityData: "{}")
        let confirmed = Date(timeIntervalSince1970: 1_800_000_000.123456)
        let rows = Self.rows(
            {
                $0.email = nil
                $0.encryptedPassword = ""
                $0.phone = "15555550100"
                $0.phoneConfirmedAt = confirmed
                $0.rawAppMetaData = nil
            }, identities: [identity])
        let account = try SupabaseAccountMapping.account(rows, now: Self.now)
        #expect(account.user.email.isEmpty && !account.user.isAnonymous && account.user.emailConfirmedAt == nil)
        #expect(account.user.phone == "15555550100" && account.user.phoneConfirmedAt?.timeIntervalSince1970 == 1_800_000_000.123)
        #expect(account.user.providers == ["phone"] && account.identities.isEmpty, "the phone identity is the user's own number")
        #expect(account.user.passwordHash == nil)

        let state = IdentityState(user: account.user, userIdentities: [])
        #expect(try ImportPlan.plan(account, state: state, now: Self.now).result == .unchanged)
        // The user added an address and changed the number here: a re-run keeps both.
        var movedOn = account.user
        movedOn.email = "new@example.com"
        movedOn.phone = "15555550111"
        let plan = try ImportPlan.plan(account, state: IdentityState(user: movedOn, userIdentities: []), now: Self.now)
        #expect(plan.result == .unchanged, "\(plan.changes)")

        // An address and a number: the number is kept; the phone identity only where the source has one.
        let both = try SupabaseAccountMapping.account(Self.rows { $0.phone = "+44 7700 900123" }, now: Self.now)
        #expect(both.user.phone == "447700900123" && both.user.providers == ["email"])
        let linked = try SupabaseAccountMapping.account(Self.rows({ $0.phone = "15555550100" }, identities: [identity]), now: Self.now)
        #expect(linked.user.providers == ["email", "phone"])
    }

    @Test("a verified phone factor keeps its number; an unverified one is skipped; a verified one here for the number refuses it")
    func phoneFactors() throws {
        let row = SupabaseFactorRow(
            id: UUID(), userID: Self.id, friendlyName: "mobile", factorType: "phone", status: "verified", secret: "", createdAt: Self.now,
            updatedAt: Self.now, phone: "15555550100")
        let factor = try #require(try SupabaseAccountMapping.factor(row))
        #expect(factor.proof == .phone("15555550100") && factor.friendlyName == "mobile" && factor.id == row.id && factor.secret == nil)
        var unverified = row
        unverified.status = "unverified"
        #expect(try SupabaseAccountMapping.factor(unverified) == nil)
        var missing = row
        missing.phone = nil
        #expect(throws: ImportRefusal("a phone factor without a number")) { try SupabaseAccountMapping.factor(missing) }
        var invalid = row
        invalid.phone = "0123"
        #expect(throws: ImportRefusal("a phone factor whose number is not E.164")) { try SupabaseAccountMapping.factor(invalid) }

        let record = FactorRecord(
            id: row.id, userID: Self.id, friendlyName: "mobile", factorType: FactorRecord.phoneType, status: .verified, sealedSecret: "",
            createdAt: Self.now, updatedAt: Self.now, phone: "15555550100")
        #expect(ImportPlan.factor(record, state: FactorState(factors: [], challenge: nil, session: nil)).result == .success(true))
        #expect(
            ImportPlan.factor(record, state: FactorState(factors: [record], challenge: nil, session: nil)).result == .success(false),
            "a re-run adds nothing")
        var other = record
        other.id = UUID()
        #expect(
            ImportPlan.factor(record, state: FactorState(factors: [other], challenge: nil, session: nil)).result
                == .failure(ImportRefusal("its number is another verified phone factor of the user here")))
        other.status = .unverified
        #expect(ImportPlan.factor(record, state: FactorState(factors: [other], challenge: nil, session: nil)).result == .success(true))
    }

    @Test("verified TOTP factors with a plain secret are taken; encrypted and unverified ones are not")
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
        var other = row
        other.factorType = "sms"
        #expect(throws: ImportRefusal("a sms factor (only verified TOTP, WebAuthn and phone factors are imported)")) {
            try SupabaseAccountMapping.factor(other)
        }
    }

    /// A WebAuthn factor's row with `credential` in `web_authn_credential`.
    static func webAuthnFactor(_ credential: String?, status: String = "verified", aaguid: UUID? = nil) -> SupabaseFactorRow {
        SupabaseFactorRow(
            id: UUID(), userID: id, friendlyName: "YubiKey", factorType: "webauthn", status: status, secret: "", createdAt: now, updatedAt: now,
            webAuthnCredential: credential, webAuthnAAGUID: aaguid)
    }

    @Test("a verified WebAuthn factor takes go-webauthn's credential JSON: today's names and the capitalised ones of older versions")
    func webAuthnFactors() throws {
        let key = SoftwareAuthenticator(.es256)
        let (id, cose) = (Data(key.credentialID).base64EncodedString(), Data(key.coseKeyBytes).base64EncodedString())
        let current = """
            {"id":"\(id)","publicKey":"\(cose)","attestationType":"packed","transport":["usb","nfc"],
             "flags":{"userPresent":true,"userVerified":true,"backupEligible":true,"backupState":false},
             "authenticator":{"AAGUID":"\(Data(key.aaguid).base64EncodedString())","signCount":41,"cloneWarning":false,"attachment":"cross-platform"},
             "attestation":{"clientDataJSON":null,"publicKeyAlgorithm":-7}}
            """
        let factor = try #require(try SupabaseAccountMapping.factor(Self.webAuthnFactor(current)))
        #expect(factor.friendlyName == "YubiKey" && factor.secret == nil)
        let credential = try #require(factor.webAuthnCredential)
        #expect(credential.credentialID == key.credentialID && credential.publicKey == key.coseKeyBytes && credential.signCount == 41)
        #expect(credential.attestationType == "packed" && credential.transports == ["usb", "nfc"])
        #expect(credential.backupEligible && !credential.backedUp)
        #expect(credential.aaguid == UUID(uuidString: "00070e15-1c23-2a31-383f-464d545b6269"))

        // go-webauthn before its JSON tags: Go names, read case-insensitively as Go does; a
        // zero AAGUID is no model, the column's is used when the credential has none.
        let legacy = """
            {"ID":"\(id)","PublicKey":"\(cose)","AttestationType":"none","Transport":null,
             "Flags":{"BackupEligible":false,"BackupState":false},"Authenticator":{"AAGUID":null,"SignCount":7,"CloneWarning":false}}
            """
        let older = try #require(
            try SupabaseAccountMapping.factor(Self.webAuthnFactor(legacy, aaguid: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))))
        #expect(older.webAuthnCredential?.signCount == 7 && older.webAuthnCredential?.aaguid == nil && older.webAuthnCredential?.transports == [])
        let model = UUID()
        #expect(try SupabaseAccountMapping.factor(Self.webAuthnFactor(legacy, aaguid: model))?.webAuthnCredential?.aaguid == model)

        #expect(try SupabaseAccountMapping.factor(Self.webAuthnFactor(nil, status: "unverified")) == nil, "an enrollment not finished")
        let refusals: [(String?, String)] = [
            (nil, "without a credential"),
            ("[1]", "not a JSON object"),
            (#"{"publicKey":"\#(cose)"}"#, "no credential id"),
            (#"{"id":"\#(id)","publicKey":"not base64!"}"#, "no publicKey"),
            (
                #"{"id":"\#(id)","publicKey":"\#(Data("junk".utf8).base64EncodedString())"}"#,
                "publicKey is not a COSE key this server verifies (not CBOR)"
            ),
            (#"{"id":"\#(id)","publicKey":"\#(cose)","authenticator":{"signCount":-1}}"#, "signCount is out of range"),
        ]
        for (credential, reason) in refusals {
            let error = #expect(throws: ImportRefusal.self) { try SupabaseAccountMapping.factor(Self.webAuthnFactor(credential)) }
            #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
        }
    }

    @Test("a passkey keeps its id, credential, COSE key, counter, model, transports, flags, name and times; unreadable ones are refused")
    func passkeys() throws {
        let key = SoftwareAuthenticator(.rs256)
        let row = SupabasePasskeyRow(
            id: UUID(), userID: Self.id, credentialID: key.credentialID, publicKey: key.coseKeyBytes, attestationType: "", aaguid: nil, signCount: 12,
            transports: #"["internal", 3]"#, backupEligible: true, backedUp: true, friendlyName: "iPhone",
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.123456), updatedAt: Self.now, lastUsedAt: Self.now)
        let passkey = try SupabaseAccountMapping.passkey(row)
        #expect(
            passkey.id == row.id && passkey.userID == Self.id && passkey.credentialID == key.credentialID && passkey.publicKey == key.coseKeyBytes)
        #expect(passkey.signCount == 12 && passkey.attestationType == "none" && passkey.aaguid == nil && passkey.transports == ["internal"])
        #expect(passkey.backupEligible && passkey.backedUp && passkey.friendlyName == "iPhone" && passkey.lastUsedAt == Self.now)
        #expect(passkey.createdAt.timeIntervalSince1970 == 1_700_000_000.123)

        var broken = row
        broken.publicKey = CBOREncoder.encode(.pairs([(.int(1), .int(2)), (.int(3), .int(-35))]))
        #expect(throws: ImportRefusal("public_key is not a COSE key this server verifies (unsupported algorithm -35)")) {
            try SupabaseAccountMapping.passkey(broken)
        }
        var counter = row
        counter.signCount = Int64(UInt32.max) + 1
        #expect(throws: ImportRefusal("sign_count is out of range")) { try SupabaseAccountMapping.passkey(counter) }
        var long = row
        long.credentialID = [UInt8](repeating: 1, count: 1024)
        #expect(throws: ImportRefusal.self) { try SupabaseAccountMapping.passkey(long) }

        // Stored once by its id; a re-run raises only a counter the source advanced.
        var stored = passkey
        stored.friendlyName = "renamed here"
        #expect(try ImportPlan.passkey(passkey, current: []).changes == [.insert(passkey)])
        #expect(try ImportPlan.passkey(passkey, current: [stored]).changes.isEmpty)
        var advanced = passkey
        advanced.signCount = 20
        var raised = stored
        raised.signCount = 20
        #expect(try ImportPlan.passkey(advanced, current: [stored]).changes == [.update(raised)])
        var other = passkey
        other.id = UUID()
        #expect(throws: ImportRefusal.self) { try ImportPlan.passkey(other, current: [stored]) }
    }

    @Test("a live session keeps its id, level and methods; a signed-token session is refused, a dead one skipped")
    func sessions() throws {
        let factorID = UUID()
        let row = SupabaseSessionRow(
            id: UUID(), userID: Self.id, createdAt: Self.now, aal: "aal2", factorID: factorID, refreshToken: "v1token",
            methods: [
                AuthenticationMethodReference(method: "oauth", timestamp: 1), AuthenticationMethodReference(method: "totp", timestamp: 2),
                AuthenticationMethodReference(method: "mfa/webauthn", timestamp: 3),
            ])
        let (session, token) = try #require(try SupabaseAccountMapping.session(row, factorIDs: [factorID], now: Self.now))
        #expect(session.id == row.id && session.aal == .aal2 && session.factorID == factorID && token == "v1token")
        #expect(session.authMethod == "oauth" && session.verifiedMethods.map(\.method) == ["totp", "mfa/webauthn"])
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
