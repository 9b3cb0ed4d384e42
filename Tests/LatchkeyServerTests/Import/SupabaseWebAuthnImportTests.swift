import Foundation
import HummingbirdBcrypt
import LatchkeyTestSupport
import LatchkeyTesting
import LatchkeyWire
import Logging
import Testing

@testable import LatchkeyServer

/// `latchkey import supabase` with GoTrue's passkeys (`auth.webauthn_credentials`) and WebAuthn
/// factors (`auth.mfa_factors.web_authn_credential`), read from a GoTrue-shaped schema on real
/// PostgreSQL: credentials made by a software authenticator, stored as GoTrue stores them
/// (`bytea` columns; go-webauthn's `Credential` JSON), imported, then used on the real server.
@Suite("Supabase import: passkeys and WebAuthn factors")
struct SupabaseWebAuthnImportTests {
    static let alice = UUID(uuidString: "0a11ce00-0000-4000-8000-000000000001")!
    static let bob = UUID(uuidString: "0b0b0000-0000-4000-8000-000000000002")!
    static let carol = UUID(uuidString: "0ca10100-0000-4000-8000-000000000003")!
    static let alicePasskey = UUID(uuidString: "0a11ce00-0000-4000-8000-0000000000b1")!
    static let aliceFactor = UUID(uuidString: "0a11ce00-0000-4000-8000-0000000000f1")!
    static let aliceUnfinished = UUID(uuidString: "0a11ce00-0000-4000-8000-0000000000f2")!
    static let bobPasskey = UUID(uuidString: "0b0b0000-0000-4000-8000-0000000000b2")!
    static let bobFactor = UUID(uuidString: "0b0b0000-0000-4000-8000-0000000000f2")!
    static let carolPasskey = UUID(uuidString: "0ca10100-0000-4000-8000-0000000000b3")!
    static let password = "correct horse battery"
    static let aaguid = UUID(uuidString: "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4")!

    /// The authenticators of the source's credentials: Alice's passkey (ES256), her security
    /// key registered as a WebAuthn factor (EdDSA), and a passkey Carol shares with an account
    /// that exists here already.
    struct Keys {
        var passkey = SoftwareAuthenticator(.es256)
        var factor = SoftwareAuthenticator(.edDSA)
        var taken = SoftwareAuthenticator(.es256)

        init() {
            passkey.userHandle = Array(SupabaseWebAuthnImportTests.alice.lowercasedString.utf8)
            factor.userHandle = Array(SupabaseWebAuthnImportTests.alice.lowercasedString.utf8)
        }
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// `key`'s credential as GoTrue stores a WebAuthn factor's: go-webauthn's `webauthn.Credential`
    /// through Go's `encoding/json` (byte slices as padded standard base64).
    static func goCredential(_ key: SoftwareAuthenticator, signCount: UInt32) throws -> String {
        let credential: [String: Any] = [
            "id": base64(key.credentialID), "publicKey": base64(key.coseKeyBytes), "attestationType": "none", "transport": ["usb", "nfc"],
            "flags": ["userPresent": true, "userVerified": false, "backupEligible": false, "backupState": false],
            "authenticator": ["AAGUID": base64(key.aaguid), "signCount": signCount, "cloneWarning": false, "attachment": "cross-platform"],
            "attestation": [
                "clientDataJSON": base64(Array("{}".utf8)), "clientDataHash": base64([UInt8](repeating: 1, count: 32)),
                "authenticatorData": base64([UInt8](repeating: 2, count: 37)), "publicKeyAlgorithm": -8, "object": base64([0xa0]),
            ],
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: credential), as: UTF8.self)
    }

    /// The source: Alice (a password, a passkey at counter 5, a verified WebAuthn factor at
    /// counter 2, an enrollment she did not finish), Bob (a passkey whose public key is not
    /// COSE, a factor whose credential is not base64), Carol (a passkey whose credential an
    /// account here holds already).
    static func fill(_ url: String, keys: Keys, passwordHash: String) async throws {
        let q = SupabaseAuthFixture.literal
        let bytea = SupabaseAuthFixture.bytea
        func user(_ id: UUID, _ email: String) -> String {
            """
            INSERT INTO auth.users (id, aud, role, email, encrypted_password, email_confirmed_at, created_at, updated_at,
              raw_app_meta_data, raw_user_meta_data)
            VALUES ('\(id.lowercasedString)', 'authenticated', 'authenticated', '\(email)', \(q(passwordHash)), now() - interval '9 days',
              now() - interval '10 days', now() - interval '1 day', '{"provider": "email", "providers": ["email"]}', '{}')
            """
        }
        func passkey(_ id: UUID, _ userID: UUID, _ credentialID: [UInt8], _ publicKey: [UInt8], signCount: Int, name: String) -> String {
            """
            INSERT INTO auth.webauthn_credentials (id, user_id, credential_id, public_key, attestation_type, aaguid, sign_count, transports,
              backup_eligible, backed_up, friendly_name, created_at, updated_at, last_used_at)
            VALUES ('\(id.lowercasedString)', '\(userID.lowercasedString)', \(bytea(credentialID)), \(bytea(publicKey)), 'none',
              '\(aaguid.lowercasedString)', \(signCount), '["internal", "hybrid"]', true, true, '\(name)', now() - interval '5 days',
              now() - interval '2 days', now() - interval '2 days')
            """
        }
        func factor(_ id: UUID, _ userID: UUID, status: String, credential: String?) -> String {
            """
            INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, web_authn_credential,
              web_authn_aaguid)
            VALUES ('\(id.lowercasedString)', '\(userID.lowercasedString)', \(q("key \(id.lowercasedString.suffix(2))")), 'webauthn',
              '\(status)', now() - interval '4 days', now() - interval '4 days', \(credential.map { q($0) + "::jsonb" } ?? "NULL"),
              \(credential == nil ? "NULL" : "'\(aaguid.lowercasedString)'"))
            """
        }
        try await SupabaseAuthFixture.execute(
            [
                user(alice, "alice@example.com"), user(bob, "bob@example.com"), user(carol, "carol@example.com"),
                passkey(alicePasskey, alice, keys.passkey.credentialID, keys.passkey.coseKeyBytes, signCount: 5, name: "MacBook"),
                factor(aliceFactor, alice, status: "verified", credential: try goCredential(keys.factor, signCount: 2)),
                factor(aliceUnfinished, alice, status: "unverified", credential: nil),
                passkey(bobPasskey, bob, [1, 2, 3], Array("not a COSE key".utf8), signCount: 0, name: "broken"),
                factor(bobFactor, bob, status: "verified", credential: #"{"id": "***", "publicKey": "AAAA", "authenticator": {}}"#),
                passkey(carolPasskey, carol, keys.taken.credentialID, keys.taken.coseKeyBytes, signCount: 0, name: "shared"),
            ], on: url)
    }

    /// An account here that already has `key` as a passkey.
    static func holder(of key: SoftwareAuthenticator, in store: any AuthStore) async throws {
        let now = Date()
        let dave = UserRecord(email: "dave@example.com", passwordHash: nil, createdAt: now, updatedAt: now)
        try await store.insertUser(dave, audit: nil)
        let passkey = PasskeyRecord(
            userID: dave.id, credentialID: key.credentialID, publicKey: key.coseKeyBytes, attestationType: "none", aaguid: nil, signCount: 0,
            transports: [], backupEligible: false, backedUp: false, friendlyName: "", createdAt: now, updatedAt: now)
        try await store.changePasskeys(of: dave.id) { _ in PasskeyPlan(changes: [.insert(passkey)], result: ()) }
    }

    static func run(_ store: any AuthStore, _ url: String) async throws -> ImportReport {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/nonexistent"))
        configuration.jwtSecret = String(repeating: "s", count: 40)
        let source = try await SupabaseAuthSchema.connect(url: url, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        do {
            let report = try await SupabaseImport(store: store, configuration: configuration, sessions: false).run(source: source)
            await source.close()
            return report
        } catch {
            await source.close()
            throw error
        }
    }

    @Test(
        "passkeys and verified WebAuthn factors come with their ids and credentials; unreadable ones are reported; a re-run adds nothing",
        .enabled(if: SupabaseAuthFixture.isAvailable, Comment(rawValue: SupabaseAuthFixture.skipReason)), arguments: StoreKind.available)
    func imported(kind: StoreKind) async throws {
        let keys = Keys()
        try await SupabaseAuthFixture.with { url in
            try await Self.fill(url, keys: keys, passwordHash: "")
            try await kind.withStore { store in
                try await Self.holder(of: keys.taken, in: store)
                let first = try await Self.run(store, url)
                #expect(first.read == 3 && first.created == 3 && first.refused.isEmpty, "\(first)")
                #expect(first.passkeys == 1 && first.webAuthnFactors == 1 && first.factors == 0, "\(first)")
                let reasons = first.leftOut.map { "\($0.uid ?? "") \($0.reason)" }
                #expect(reasons.count == 3, "\(reasons)")
                #expect(
                    reasons.contains {
                        $0.hasPrefix(Self.bob.lowercasedString)
                            && $0.contains("passkey \(Self.bobPasskey.lowercasedString): public_key is not a COSE key")
                    })
                #expect(
                    reasons.contains {
                        $0.hasPrefix(Self.bob.lowercasedString)
                            && $0.contains(
                                "factor \(Self.bobFactor.lowercasedString): a WebAuthn factor whose web_authn_credential has no credential id")
                    })
                #expect(
                    reasons.contains {
                        $0.hasPrefix(Self.carol.lowercasedString)
                            && $0.contains(
                                "passkey \(Self.carolPasskey.lowercasedString): its credential is registered here already to another account")
                    })
                #expect(!reasons.contains { $0.contains("***") || $0.contains("@") }, "reasons name no value")

                let passkeys = try await store.passkeys(userID: Self.alice)
                let passkey = try #require(passkeys.first)
                #expect(passkeys.count == 1 && passkey.id == Self.alicePasskey)
                #expect(passkey.credentialID == keys.passkey.credentialID && passkey.publicKey == keys.passkey.coseKeyBytes)
                #expect(passkey.signCount == 5 && passkey.aaguid == Self.aaguid && passkey.transports == ["internal", "hybrid"])
                #expect(passkey.backupEligible && passkey.backedUp && passkey.friendlyName == "MacBook" && passkey.lastUsedAt != nil)
                let (bobs, carols) = (try await store.passkeys(userID: Self.bob), try await store.passkeys(userID: Self.carol))
                #expect(bobs.isEmpty && carols.isEmpty)

                let factors = try await store.factors(userID: Self.alice)
                let factor = try #require(factors.first)
                #expect(factors.count == 1 && factor.id == Self.aliceFactor && factor.isVerified, "the unfinished enrollment is not taken")
                #expect(factor.factorType == "webauthn" && factor.friendlyName == "key f1" && factor.sealedSecret.isEmpty)
                let credential = try #require(factor.webAuthnCredential)
                #expect(credential.credentialID == keys.factor.credentialID && credential.publicKey == keys.factor.coseKeyBytes)
                #expect(credential.signCount == 2 && credential.transports == ["usb", "nfc"] && credential.attestationType == "none")
                #expect(credential.aaguid == UUID(uuidString: "00070e15-1c23-2a31-383f-464d545b6269"), "the software authenticator's AAGUID")
                #expect(try await store.factors(userID: Self.bob).isEmpty)

                // The user kept signing in at the source: the re-run adds nothing, and raises the counter.
                try await SupabaseAuthFixture.execute(
                    [
                        "UPDATE auth.webauthn_credentials SET sign_count = 9, friendly_name = 'renamed' WHERE id = '\(Self.alicePasskey.lowercasedString)'"
                    ],
                    on: url)
                let again = try await Self.run(store, url)
                #expect(again.created == 0 && again.unchanged == 3 && again.passkeys == 1 && again.webAuthnFactors == 1, "\(again)")
                #expect(again.leftOut.count == 3)
                let rerun = try await store.passkeys(userID: Self.alice)
                #expect(rerun.count == 1 && rerun.first?.signCount == 9 && rerun.first?.friendlyName == "MacBook", "the name is the user's here")
                #expect(try await store.factors(userID: Self.alice).count == 1)
            }
        }
    }

    @Test(
        "an imported passkey signs in on the server (GoTrue's user handle); the imported WebAuthn factor raises that session to aal2",
        .enabled(if: SupabaseAuthFixture.isAvailable, Comment(rawValue: SupabaseAuthFixture.skipReason)))
    func usedOnTheServer() async throws {
        var keys = Keys()
        let hash = Bcrypt.hash(Self.password, cost: 4)
        try await SupabaseAuthFixture.with { url in
            try await Self.fill(url, keys: keys, passwordHash: hash)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-supabase-webauthn-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let store = try SQLiteAuthStore(path: directory.appendingPathComponent("latchkey.sqlite").path)
            let report = try await Self.run(store, url)
            #expect(report.passkeys == 2 && report.webAuthnFactors == 1, "\(report)")

            try await TestServer.with(clock: ManualServerClock(Date()), store: store) { configuration in
                PasskeyRoutesTests.enabled(&configuration)
                WebAuthnFactorTests.enabled(&configuration)
            } _: { server in
                // The authenticator's counter is past the one the source stored.
                keys.passkey.signCount = 5
                // UP, UV, and BE and BS: the passkey is a synced one, as the source recorded.
                let signedIn = try await PasskeyRoutesTests.signIn(server, &keys.passkey, flags: 0x1d)
                #expect(signedIn.status == 200, "\(signedIn.text)")
                let session = try #require(TestSession(signedIn))
                #expect(session.userID == Self.alice.lowercasedString)
                #expect(try MFATests.methods(session.accessToken).contains("passkey"))
                #expect(try MFATests.claims(session.accessToken)["aal"] as? String == "aal1")
                let listed = try await server.request(.GET, "/passkeys", bearer: session.accessToken)
                #expect(listed.jsonArray?.first?["id"] as? String == Self.alicePasskey.lowercasedString, "\(listed.text)")
                #expect(listed.jsonArray?.first?["friendly_name"] as? String == "MacBook")

                // The same assertion counter again is a clone's: refused.
                var clone = keys.passkey
                clone.signCount -= 1
                #expect(try await PasskeyRoutesTests.signIn(server, &clone, flags: 0x1d).status != 200)

                // The WebAuthn factor: its request ceremony allows the imported credential, and the
                // security key's assertion verifies against the imported COSE key.
                let factorID = Self.aliceFactor.lowercasedString
                let (challengeID, type, options) = try await WebAuthnFactorTests.challenge(server, session.accessToken, factorID)
                #expect(type == "request")
                let allowed = (options["allowCredentials"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                #expect(allowed == [Base64URL.encode(keys.factor.credentialID)])
                keys.factor.signCount = 2
                let assertion = keys.factor.assert(challenge: try PasskeyRoutesTests.bytes(options["challenge"]))
                let verified = try await WebAuthnFactorTests.verify(
                    server, session.accessToken, factorID, challenge: challengeID, type: "request",
                    response: PasskeyRoutesTests.credentialJSON(assertion))
                #expect(verified.status == 200, "\(verified.text)")
                let raised = try #require(TestSession(verified))
                #expect(try MFATests.claims(raised.accessToken)["aal"] as? String == "aal2")
                #expect(try MFATests.methods(raised.accessToken).contains("mfa/webauthn"))

                // A password sign-in reaches aal2 with the same factor too.
                let (_, again) = try await WebAuthnFactorTests.assert(server, email: "alice@example.com", factorID: factorID) { challenge in
                    keys.factor.assert(challenge: challenge)
                }
                #expect(again.status == 200, "\(again.text)")
            }
        }
    }
}
