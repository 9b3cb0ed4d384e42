import Foundation
import Latchkey
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `latchkey import supabase` as a real process, reading a GoTrue-shaped `auth` schema on real
/// PostgreSQL (rows in GoTrue's shapes, passwords hashed by PyPI's `bcrypt`) into the database of
/// a real server running in this process.
@Suite("latchkey import supabase")
struct ImportSupabaseCommandTests {
    static let enabled = BcryptPeer.isAvailable && SupabaseAuthFixture.isAvailable
    static let skipReason = BcryptPeer.isAvailable ? SupabaseAuthFixture.skipReason : BcryptPeer.skipReason

    struct Account {
        var id: String
        var email: String?
        var password: String
        var prefix: String
    }

    static let alice = Account(id: "0a11ce00-0000-4000-8000-000000000001", email: "alice@example.com", password: "alice pässword 1", prefix: "2a")
    static let bob = Account(id: "0b0b0000-0000-4000-8000-000000000002", email: "bob@example.com", password: "bob password 2", prefix: "2b")
    static let carol = Account(id: "0ca10100-0000-4000-8000-000000000003", email: "carol@example.com", password: "carol password 3", prefix: "2y")
    static let aliceFactor = "0a11ce00-0000-4000-8000-0000000000f1"
    static let aliceSession = "0a11ce00-0000-4000-8000-0000000000a1"
    /// A base32 TOTP secret as GoTrue stores it (pquerna/otp's 20 bytes, no padding).
    static let totpSecret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
    static let alicePasskey = "0a11ce00-0000-4000-8000-0000000000b1"
    static let aliceKeyFactor = "0a11ce00-0000-4000-8000-0000000000f2"
    static let alicePhoneFactor = "0a11ce00-0000-4000-8000-0000000000f3"
    static let phoneOnly = "0ff00000-0000-4000-8000-000000000005"
    /// A COSE_Key (EC2, ES256, P-256) whose point is the curve's generator: a valid public key.
    static let coseKey: [UInt8] =
        [0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]
        + hex("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296") + [0x22, 0x58, 0x20]
        + hex("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")
    static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { UInt8(text.dropFirst($0).prefix(2), radix: 16)! }
    }
    /// GoTrue's refresh tokens: 12 lowercase letters and digits.
    static let liveToken = "k3x9q2mfw7pa"
    static let revokedToken = "b8rt5nz1ce4d"

    /// The users: three with bcrypt passwords (`$2a$`, `$2b$` banned, `$2y$` unconfirmed), one
    /// deleted, one phone-only (a confirmed number and its phone identity), one with an argon2
    /// hash, one whose factor secret and session GoTrue encrypted or signed, and one anonymous;
    /// Alice has a GitHub identity, a verified TOTP factor, a passkey, a verified WebAuthn factor
    /// (go-webauthn's credential JSON), a verified phone factor and an unverified one, and a live
    /// session with a rotated refresh token.
    static func fill(_ url: String, hashes: [String]) async throws {
        let q = SupabaseAuthFixture.literal
        func user(_ id: String, _ email: String?, _ hash: String?, confirmed: Bool = true, extra: String = "NULL, NULL, NULL, false") -> String {
            """
            INSERT INTO auth.users (id, aud, role, email, encrypted_password, email_confirmed_at, created_at, updated_at, last_sign_in_at,
              raw_app_meta_data, raw_user_meta_data, phone, banned_until, deleted_at, is_anonymous)
            VALUES ('\(id)', 'authenticated', 'authenticated', \(q(email)), \(q(hash)), \(confirmed ? "now() - interval '9 days'" : "NULL"),
              now() - interval '10 days', now() - interval '1 day', now() - interval '2 days',
              '{"provider": "email", "providers": ["email"]}', '{}', \(extra))
            """
        }
        try await SupabaseAuthFixture.execute(
            [
                user(alice.id, alice.email, hashes[0]),
                """
                UPDATE auth.users SET raw_app_meta_data = '{"provider": "email", "providers": ["email", "github"], "plan": "pro"}',
                  raw_user_meta_data = '{"full_name": "Alice Example", "newsletter": true}' WHERE id = '\(alice.id)'
                """,
                """
                INSERT INTO auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at) VALUES
                  ('\(alice.id)', '\(alice.id)', '{"sub": "\(alice.id)", "email": "alice@example.com"}', 'email', now(), now()),
                  ('4242', '\(alice.id)', '{"sub": "4242", "email": "Alice@Example.com", "user_name": "alice"}', 'github', now(), now())
                """,
                """
                INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
                VALUES ('\(aliceFactor)', '\(alice.id)', 'phone app', 'totp', 'verified', now(), now(), '\(totpSecret)')
                """,
                """
                INSERT INTO auth.webauthn_credentials (id, user_id, credential_id, public_key, attestation_type, sign_count, friendly_name)
                VALUES ('\(alicePasskey)', '\(alice.id)', \(SupabaseAuthFixture.bytea([1, 2, 3, 4])), \(SupabaseAuthFixture.bytea(coseKey)),
                  'none', 3, 'MacBook')
                """,
                """
                INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, web_authn_credential)
                VALUES ('\(aliceKeyFactor)', '\(alice.id)', 'YubiKey', 'webauthn', 'verified', now(), now(),
                  '{"id": "BQYHCA==", "publicKey": "\(Data(coseKey).base64EncodedString())", "attestationType": "none",
                    "flags": {"backupEligible": false, "backupState": false}, "authenticator": {"AAGUID": null, "signCount": 0}}')
                """,
                """
                INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, phone) VALUES
                  ('\(alicePhoneFactor)', '\(alice.id)', 'mobile', 'phone', 'verified', now(), now(), '15555550199'),
                  ('0a11ce00-0000-4000-8000-0000000000f4', '\(alice.id)', 'old mobile', 'phone', 'unverified', now(), now(), '15555550198')
                """,
                """
                INSERT INTO auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at)
                VALUES ('\(aliceSession)', '\(alice.id)', now() - interval '2 days', now(), 'aal1', now() at time zone 'utc')
                """,
                """
                INSERT INTO auth.refresh_tokens (token, user_id, revoked, created_at, updated_at, parent, session_id) VALUES
                  ('\(revokedToken)', '\(alice.id)', true, now() - interval '2 days', now(), NULL, '\(aliceSession)'),
                  ('\(liveToken)', '\(alice.id)', false, now() - interval '1 hour', now(), '\(revokedToken)', '\(aliceSession)')
                """,
                """
                INSERT INTO auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id)
                VALUES ('\(aliceSession)', now() - interval '2 days', now() - interval '2 days', 'password', gen_random_uuid())
                """,
                user(bob.id, bob.email, hashes[1], extra: "NULL, now() + interval '30 days', NULL, false"),
                user(carol.id, carol.email, hashes[2], confirmed: false),
                user("0dae0000-0000-4000-8000-000000000004", "dave@example.com", hashes[0], extra: "NULL, NULL, now(), false"),
                user(phoneOnly, nil, "", extra: "'15555550100', NULL, NULL, false"),
                """
                UPDATE auth.users SET phone_confirmed_at = now() - interval '9 days',
                  raw_app_meta_data = '{"provider": "phone", "providers": ["phone"]}' WHERE id = '\(phoneOnly)'
                """,
                """
                INSERT INTO auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
                VALUES ('\(phoneOnly)', '\(phoneOnly)', '{"sub": "\(phoneOnly)", "phone": "15555550100"}', 'phone', now(), now())
                """,
                user("0e100000-0000-4000-8000-000000000006", "erin@example.com", "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo"),
                user("0f000000-0000-4000-8000-000000000007", "frank@example.com", hashes[1]),
                """
                INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
                VALUES ('0f000000-0000-4000-8000-0000000000f7', '0f000000-0000-4000-8000-000000000007', '', 'totp', 'verified', now(), now(),
                  '{"key_id":"k1","alg":"aes-gcm-hkdf","nonce":"bm9uY2U","data":"ZW5jcnlwdGVk"}')
                """,
                """
                INSERT INTO auth.sessions (id, user_id, created_at, updated_at, aal, refresh_token_hmac_key, refresh_token_counter)
                VALUES ('0f000000-0000-4000-8000-0000000000a7', '0f000000-0000-4000-8000-000000000007', now(), now(), 'aal1', 'c2VjcmV0a2V5', 3)
                """,
                user("0a000000-0000-4000-8000-000000000008", nil, nil, confirmed: false, extra: "NULL, NULL, NULL, true"),
            ], on: url)
    }

    func post(
        _ server: TestAuthServer, _ path: String, _ body: [String: Any], bearer: String? = nil
    ) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: server.baseURL.absoluteString + path)!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, response) = try await URLSession.shared.cancellableData(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    func signIn(_ server: TestAuthServer, _ account: Account) async throws -> (status: Int, json: [String: Any]) {
        try await post(server, "/token?grant_type=password", ["email": account.email ?? "", "password": account.password])
    }

    @Test(
        "imported users keep their ids, passwords, identities, metadata, bans, factors and sessions; a re-run changes nothing",
        .enabled(if: enabled, Comment(rawValue: skipReason)))
    func endToEnd() async throws {
        let hashes = try await BcryptPeer.hashes([Self.alice, Self.bob, Self.carol].map { ($0.password, $0.prefix) })
        try await SupabaseAuthFixture.with { url in
            try await Self.fill(url, hashes: hashes)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-import-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let clock = ManualServerClock(Date())
            let server = try await TestAuthServer.start(dataDirectory: folder, clock: clock) {
                $0.phone.enabled = true
                $0.phone.testCodes = "15555550100:123456"
            }
            do {
                let arguments = [
                    "import", "supabase", "--database-url", url, "--sessions", "--data-dir", folder.path,
                    "--database", "sqlite://" + folder.appendingPathComponent("latchkey.sqlite").path,
                ]
                let first = try await CommandRunner.run(arguments)
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stdout.contains("read 8 users: 7 created, 0 updated, 0 unchanged, 1 refused"), "\(first.stdout)")
                #expect(
                    first.stdout.contains("carried over: 1 identities, 1 TOTP factors, 1 WebAuthn factors, 1 phone factors, 1 passkeys, 1 sessions"),
                    "\(first.stdout)")
                #expect(first.stdout.contains("(id 0dae0000-0000-4000-8000-000000000004): deleted at the source"), "\(first.stdout)")
                #expect(!first.stdout.contains(Self.phoneOnly), "the phone-only account is imported: \(first.stdout)")
                // An Argon2 hash within the limits is imported with the account (checked by libargon2).
                #expect(!first.stdout.contains("(id 0e100000-0000-4000-8000-000000000006): imported without its password"), "\(first.stdout)")
                #expect(
                    first.stdout.contains(
                        "factor 0f000000-0000-4000-8000-0000000000f7: a TOTP factor whose secret GoTrue's database encryption sealed"))
                #expect(first.stdout.contains("session 0f000000-0000-4000-8000-0000000000a7: a session whose refresh tokens GoTrue signs"))

                // Passwords hashed by PyPI's bcrypt, $2a$, $2b$ and $2y$; the id, identity and metadata kept.
                let aliceIn = try await signIn(server, Self.alice)
                #expect(aliceIn.status == 200, "\(aliceIn.json)")
                let alice = aliceIn.json["user"] as? [String: Any]
                #expect(alice?["id"] as? String == Self.alice.id)
                #expect(
                    ((alice?["identities"] as? [[String: Any]]) ?? []).contains {
                        $0["provider"] as? String == "github" && $0["id"] as? String == "4242"
                    })
                #expect((alice?["user_metadata"] as? [String: Any])?["full_name"] as? String == "Alice Example")
                #expect((alice?["app_metadata"] as? [String: Any])?["plan"] as? String == "pro")
                // The verified phone factor keeps its id and number; the unverified one is not taken.
                let factors = (alice?["factors"] as? [[String: Any]]) ?? []
                #expect(factors.count == 3, "TOTP, WebAuthn and phone: \(factors)")
                let phoneFactor = factors.first { $0["factor_type"] as? String == "phone" }
                #expect(phoneFactor?["id"] as? String == Self.alicePhoneFactor && phoneFactor?["phone"] as? String == "15555550199")
                #expect(phoneFactor?["status"] as? String == "verified" && phoneFactor?["friendly_name"] as? String == "mobile")

                // The phone-only account signs in with a code texted to its number (a test number here).
                #expect(try await post(server, "/otp", ["phone": "+15555550100", "create_user": false]).status == 200)
                let texted = try await post(server, "/verify", ["type": "sms", "phone": "+15555550100", "token": "123456"])
                #expect(texted.status == 200, "\(texted.json)")
                let phoneUser = texted.json["user"] as? [String: Any]
                #expect(phoneUser?["id"] as? String == Self.phoneOnly && phoneUser?["phone"] as? String == "15555550100")
                #expect(phoneUser?["phone_confirmed_at"] is String && (phoneUser?["email"] as? String ?? "").isEmpty)
                #expect(
                    ((phoneUser?["identities"] as? [[String: Any]]) ?? []).contains { $0["provider"] as? String == "phone" }, "\(phoneUser ?? [:])")
                #expect(try await signIn(server, Account(id: "", email: "alice@example.com", password: "alice password 1", prefix: "")).status == 400)
                #expect(try await signIn(server, Self.bob).json["error_code"] as? String == "user_banned")
                #expect(try await signIn(server, Self.carol).json["error_code"] as? String == "email_not_confirmed")

                // The live Supabase refresh token refreshes once; presenting it again gets the same
                // successor (its direct parent, as GoTrue's reuse rules); the revoked one was not carried.
                let refreshed = try await post(server, "/token?grant_type=refresh_token", ["refresh_token": Self.liveToken])
                #expect(refreshed.status == 200, "\(refreshed.json)")
                #expect((refreshed.json["user"] as? [String: Any])?["id"] as? String == Self.alice.id)
                let successor = refreshed.json["refresh_token"] as? String
                #expect(successor != nil && successor != Self.liveToken)
                let again = try await post(server, "/token?grant_type=refresh_token", ["refresh_token": Self.liveToken])
                #expect(again.status == 200 && again.json["refresh_token"] as? String == successor)
                let revoked = try await post(server, "/token?grant_type=refresh_token", ["refresh_token": Self.revokedToken])
                #expect(revoked.status == 400 && revoked.json["error_code"] as? String == "refresh_token_not_found")

                // The verified factor: a code computed from GoTrue's secret (by Python's standard library)
                // verifies (and, as in GoTrue, ends the user's other aal1 sessions: the refresh comes first).
                let access = try #require(aliceIn.json["access_token"] as? String)
                let challenge = try await post(server, "/factors/\(Self.aliceFactor)/challenge", [:], bearer: access)
                #expect(challenge.status == 200, "\(challenge.json)")
                let code = try await BcryptPeer.totpCode(secret: Self.totpSecret, at: clock.now())
                let verified = try await post(
                    server, "/factors/\(Self.aliceFactor)/verify", ["challenge_id": challenge.json["id"] as? String ?? "", "code": code],
                    bearer: access)
                #expect(verified.status == 200, "\(verified.json)")

                let rerun = try await CommandRunner.run(arguments)
                #expect(rerun.status == 0, "\(rerun.stderr)")
                #expect(rerun.stdout.contains("read 8 users: 0 created, 0 updated, 7 unchanged, 1 refused"), "\(rerun.stdout)")
                #expect(
                    rerun.stdout.contains("carried over: 1 identities, 1 TOTP factors, 1 WebAuthn factors, 1 phone factors, 1 passkeys, 1 sessions"),
                    "\(rerun.stdout)")
                #expect(try await signIn(server, Self.alice).status == 200)
                let afterRerun = try await post(server, "/token?grant_type=refresh_token", ["refresh_token": try #require(successor)])
                #expect(afterRerun.json["error_code"] as? String == "refresh_token_not_found", "the re-run did not bring back a session ended here")

                let secrets = hashes + [Self.totpSecret, Self.liveToken, Self.revokedToken, Self.alice.password, "alice@example.com", "c2VjcmV0a2V5"]
                for output in [first.stdout, first.stderr, rerun.stdout, rerun.stderr] {
                    for secret in secrets { #expect(!output.contains(secret), "the command printed a secret, a token or an address") }
                }
                try await server.shutdown()
            } catch {
                try? await server.shutdown()
                throw error
            }
        }
    }

    @Test(
        "a bad URL, an unreachable database and a missing schema are usage errors that name no password",
        .enabled(if: SupabaseAuthFixture.isAvailable, Comment(rawValue: SupabaseAuthFixture.skipReason)))
    func usage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-import-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = try await CommandRunner.run(["import", "supabase", "--database-url", "mysql://u:hunter2secret@h/db", "--data-dir", folder.path])
        #expect(bad.status != 0 && bad.stderr.contains("--database-url must look like") && !bad.stderr.contains("hunter2secret"), "\(bad.stderr)")
        let closed = try await CommandRunner.run(
            ["import", "supabase", "--database-url", "postgres://u:hunter2secret@127.0.0.1:1/db?connect_timeout=5", "--data-dir", folder.path])
        #expect(closed.status != 0 && closed.stderr.contains("cannot connect to postgres://u@127.0.0.1:1/db"), "\(closed.stderr)")
        #expect(!closed.stderr.contains("hunter2secret"))
        try await SupabaseAuthFixture.with { url in
            let missing = try await CommandRunner.run(["import", "supabase", "--database-url", url, "--schema", "gotrue", "--data-dir", folder.path])
            #expect(missing.status != 0 && missing.stderr.contains("has no table gotrue.users"), "\(missing.stderr)")
        }
    }
}
