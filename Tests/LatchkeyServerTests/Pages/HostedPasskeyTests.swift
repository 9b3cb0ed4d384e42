import Foundation
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// Passkeys on the hosted pages, against the real server with a software authenticator: the
/// script and the pages' policies, "Add a passkey instead" on a recovery or invitation form (with
/// every rule of the password form), and the sign-in page that lands on an app's redirect with a
/// PKCE code or the session.
@Suite("Hosted pages: passkeys")
struct HostedPasskeyTests {
    static let password = "correct horse battery"
    static let appRedirect = "com.example.app://callback"
    static let scriptPolicy =
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; script-src 'self'; connect-src 'self'"

    /// A standalone server at https://example.com, with passkeys for that origin (or as
    /// `configure` changes them), that lets the test app's redirect through.
    func server(configure: @escaping (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(configure: {
            PasskeyRoutesTests.enabled(&$0)
            $0.externalURL = SoftwareAuthenticator.origin
            $0.autoconfirm = true
            $0.additionalRedirectURLs = [Self.appRedirect]
            MFATests.roomy(&$0)
            configure(&$0)
        }) { server in try await body(server) }
    }

    /// A recovery form for a new account: the ticket cookie, the page, and the account's session.
    func recoveryForm(_ server: TestServer, _ email: String) async throws -> (cookie: String, page: TestResponse, before: TestSession) {
        let before = try await server.signUp(email, Self.password)
        #expect(try await server.request(.POST, "/recover", json: ["email": email]).status == 200)
        let token = try server.linkToken(to: email, type: "recovery")
        let followed = try await server.request(.GET, "/verify?token=\(token)&type=recovery")
        #expect(followed.headers.first(name: "Location") == "welcome/password")
        let cookie = String(try #require(followed.headers.first(name: "Set-Cookie")).prefix { $0 != ";" })
        let page = try await server.request(.GET, "/welcome/password", headers: [("Cookie", cookie)])
        #expect(page.status == 200)
        return (cookie, page, before)
    }

    /// The page's passkey post, as its script makes it (same origin: `Sec-Fetch-Site`, and the
    /// `Origin: null` of a no-referrer page).
    func post(
        _ server: TestServer, _ path: String, _ body: [String: any Sendable], cookie: String?,
        headers: [(String, String)] = [("Sec-Fetch-Site", "same-origin"), ("Origin", "null")]
    ) async throws -> TestResponse {
        try await server.request(.POST, path, json: body, headers: (cookie.map { [("Cookie", $0)] } ?? []) + headers)
    }

    /// Registers a passkey through the page's two posts; returns the verify answer.
    func addPasskey(
        _ server: TestServer, cookie: String, csrf: String, authenticator: SoftwareAuthenticator
    ) async throws -> (options: TestResponse, verify: TestResponse) {
        let options = try await post(server, "/welcome/passkey/registration/options", ["csrf": csrf], cookie: cookie)
        guard options.status == 200, let id = options["challenge_id"] as? String,
            let challenge = (options["options"] as? [String: Any])?["challenge"] as? String
        else { return (options, options) }
        let credential = PasskeyRoutesTests.credentialJSON(
            authenticator.register(challenge: try PasskeyRoutesTests.bytes(challenge)), id: authenticator.credentialID)
        let verify = try await post(
            server, "/welcome/passkey/registration/verify", ["csrf": csrf, "challenge_id": id, "credential": credential], cookie: cookie)
        return (options, verify)
    }

    func passkeyCount(_ server: TestServer, _ userID: String) async throws -> Int {
        try #require(try await server.request(.GET, "/admin/users/\(userID)/passkeys", bearer: server.server.serviceRoleKey).jsonArray).count
    }

    /// A sign-in on the page: options, an assertion by `authenticator`, and the page's post.
    func signIn(_ server: TestServer, _ authenticator: inout SoftwareAuthenticator, _ fields: [String: any Sendable]) async throws -> TestResponse {
        let (id, challenge) = try await PasskeyRoutesTests.signInOptions(server)
        let credential = PasskeyRoutesTests.credentialJSON(authenticator.assert(challenge: challenge))
        return try await post(server, "/welcome/passkey/sign-in", fields.merging(["challenge_id": id, "credential": credential]) { $1 }, cookie: nil)
    }

    // MARK: The script and the pages

    @Test(
        "passkey.js is a cacheable same-origin script; only pages that offer passkeys load it, under a policy that adds exactly script-src and connect-src 'self'"
    )
    func scriptAndPolicies() async throws {
        try await server { server in
            let script = try await server.request(.GET, "/welcome/passkey.js")
            #expect(script.status == 200 && script.headers.first(name: "Content-Type") == "text/javascript; charset=utf-8")
            #expect(script.headers.first(name: "Cache-Control") == "public, max-age=3600")
            #expect(script.headers.first(name: "X-Content-Type-Options") == "nosniff")
            #expect(script.text.contains("navigator.credentials.create") && script.text.contains("navigator.credentials.get"))
            for absent in ["localStorage", "sessionStorage", "document.cookie", "eval(", "http://", "https://", "innerHTML"] {
                #expect(!script.text.contains(absent), "\(absent)")
            }

            let (_, form, _) = try await recoveryForm(server, "hp-script@example.com")
            #expect(form.headers.first(name: "Content-Security-Policy") == Self.scriptPolicy)
            form.expectPageHeaders("form")
            #expect(form.text.contains("<script src=\"passkey.js\" defer></script>"))
            #expect(form.text.components(separatedBy: "<script").count == 2, "one script element, with src: no inline script")
            #expect(form.text.contains("Add a passkey instead"))
            #expect(form.text.contains("data-csrf=\"\(try #require(form.csrf))\""))
            #expect(form.text.contains("data-options=\"passkey/registration/options\""))
            #expect(form.text.contains("<section id=\"passkey\" class=\"passkey\" hidden"), "hidden until the script finds WebAuthn")
            #expect(form.text.contains("role=\"alert\" class=\"problem\" id=\"passkey-problem\""))
            #expect(!form.text.contains("style=") && !form.text.contains("onclick"), "no inline style or handler")

            let signIn = try await server.request(
                .GET, "/welcome/sign-in?redirect_to=\(Self.appRedirect)&code_challenge=\(PKCETests.s256)&code_challenge_method=s256")
            #expect(signIn.status == 200 && signIn.headers.first(name: "Content-Security-Policy") == Self.scriptPolicy)
            signIn.expectPageHeaders("sign-in")
            #expect(signIn.text.contains("Sign in with a passkey") && signIn.text.contains("<script src=\"passkey.js\" defer></script>"))
            #expect(
                signIn.text.contains("data-options=\"../passkeys/authentication/options\"") && signIn.text.contains("data-verify=\"passkey/sign-in\"")
            )
            #expect(
                signIn.text.contains("data-redirect-to=\"\(Self.appRedirect)\"") && signIn.text.contains("data-code-challenge=\"\(PKCETests.s256)\""))
            #expect(signIn.text.contains("id=\"passkey-unsupported\""), "says what to do when the browser has no WebAuthn")

            for path in ["/", "/welcome/confirmed", "/welcome/passkey-added", "/welcome/password", "/welcome/link-error?code=otp_expired"] {
                let page = try await server.request(.GET, path)
                #expect(page.headers.first(name: "Content-Security-Policy") == HostedPageRoutes.contentSecurityPolicy, "\(path)")
                #expect(!page.text.contains("<script"), "\(path)")
            }
            #expect(try await server.request(.GET, "/welcome/passkey-added").text.contains("Passkey added"))
            let invalid = try await server.request(.GET, "/welcome/sign-in?code_challenge=short&code_challenge_method=s256")
            #expect(invalid.status == 400 && invalid.text.contains("not valid") && !invalid.text.contains("<script"))
        }
    }

    @Test("no passkey offer, script or working route when passkeys are off or the server's origin is not a relying party origin")
    func notOffered() async throws {
        let configurations: [(String, (inout ServerConfiguration) -> Void)] = [
            ("passkeys off", { $0.passkeys.enabled = false }),
            ("origin not listed", { $0.passkeys.origins = ["https://app.example.com"] }),
            ("another port", { $0.externalURL = "https://example.com:8443" }),
        ]
        for (name, configure) in configurations {
            try await server(configure: configure) { server in
                let (cookie, form, _) = try await recoveryForm(server, "hp-off@example.com")
                let csrf = try #require(form.csrf)
                #expect(!form.text.contains("passkey") && !form.text.contains("<script"), "\(name)")
                #expect(form.headers.first(name: "Content-Security-Policy") == HostedPageRoutes.contentSecurityPolicy, "\(name)")
                let signIn = try await server.request(.GET, "/welcome/sign-in?redirect_to=\(Self.appRedirect)")
                #expect(signIn.status == 200 && signIn.text.contains("Passkeys are not available here"), "\(name)")
                #expect(!signIn.text.contains("<script") && !signIn.text.contains("<button"), "\(name)")
                #expect(signIn.headers.first(name: "Content-Security-Policy") == HostedPageRoutes.contentSecurityPolicy, "\(name)")
                for path in ["/welcome/passkey/registration/options", "/welcome/passkey/registration/verify", "/welcome/passkey/sign-in"] {
                    let refused = try await post(server, path, ["csrf": csrf], cookie: cookie)
                    #expect(refused.status == 404 && refused.errorCode == "passkey_disabled", "\(name) \(path): \(refused.text)")
                }
            }
        }
        // With CAPTCHA protection on the sign-in page cannot get a token (its policy loads no
        // third-party script): it says passkeys are not available, and its post is refused.
        try await server(configure: {
            $0.captcha.enabled = true
            $0.captcha.secret = "unused"
        }) { server in
            let signIn = try await server.request(.GET, "/welcome/sign-in?redirect_to=\(Self.appRedirect)")
            #expect(signIn.status == 200 && signIn.text.contains("Passkeys are not available here") && !signIn.text.contains("<script"))
            let refused = try await post(server, "/welcome/passkey/sign-in", [:], cookie: nil)
            #expect(refused.status == 404 && refused.errorCode == "passkey_disabled", "\(refused.text)")
        }
        #expect(HostedPasskeys.origin(of: "HTTPS://Example.com:443/auth/v1") == "https://example.com")
        #expect(HostedPasskeys.origin(of: "http://localhost:9999") == "http://localhost:9999")
    }

    // MARK: Adding a passkey from a recovery link

    @Test("recovery → add a passkey: stored and audited, every session ends, the ticket is spent, and the passkey signs in")
    func addFromRecovery() async throws {
        try await server { server in
            let (cookie, form, before) = try await recoveryForm(server, "hp-add@example.com")
            let other = try #require(TestSession(try await server.signIn("hp-add@example.com")))
            var authenticator = SoftwareAuthenticator()
            authenticator.userHandle = Array(before.userID.utf8)
            let (options, verify) = try await addPasskey(server, cookie: cookie, csrf: try #require(form.csrf), authenticator: authenticator)
            #expect(options.headers.first(name: "Cache-Control") == "no-store")
            let user = try #require((options["options"] as? [String: Any])?["user"] as? [String: Any])
            #expect(user["name"] as? String == "hp-add@example.com")
            #expect(verify.status == 200, "\(verify.text)")
            #expect(verify["location"] as? String == "passkey-added")
            #expect(verify.headers.first(name: "Set-Cookie")?.contains("Max-Age=0") == true, "the ticket cookie is cleared")
            #expect(verify.headers.first(name: "Cache-Control") == "no-store")

            #expect(try await passkeyCount(server, before.userID) == 1)
            #expect(try await server.auditActions().contains("passkey_created"))
            #expect(try await server.refresh(before.refreshToken).status != 200, "the sessions from before end")
            #expect(try await server.refresh(other.refreshToken).status != 200)
            #expect(try await server.request(.GET, "/welcome/password", headers: [("Cookie", cookie)]).status == 403, "the ticket is spent")
            let again = try await post(server, "/welcome/passkey/registration/options", ["csrf": try #require(form.csrf)], cookie: cookie)
            #expect(again.status == 403 && again.errorCode == "form_expired")
            #expect(try await server.signIn("hp-add@example.com").status == 200, "the password is left as it was")

            let signedIn = try await PasskeyRoutesTests.signIn(server, &authenticator)
            #expect(signedIn.status == 200 && TestSession(signedIn)?.userID == before.userID)
        }
    }

    @Test("an invitation's form offers a passkey too: the invited user signs in with it, no password ever chosen")
    func addFromInvitation() async throws {
        try await server { server in
            let invited = try await server.request(.POST, "/invite", json: ["email": "hp-invite@example.com"], bearer: server.server.serviceRoleKey)
            let userID = try #require(invited["id"] as? String)
            let followed = try await server.request(
                .GET, "/verify?token=\(try server.linkToken(to: "hp-invite@example.com", type: "invite"))&type=invite")
            let cookie = String(try #require(followed.headers.first(name: "Set-Cookie")).prefix { $0 != ";" })
            let form = try await server.request(.GET, "/welcome/password", headers: [("Cookie", cookie)])
            #expect(form.text.contains("Choose your password") && form.text.contains("Add a passkey instead"))
            var authenticator = SoftwareAuthenticator()
            authenticator.userHandle = Array(userID.utf8)
            let (_, verify) = try await addPasskey(server, cookie: cookie, csrf: try #require(form.csrf), authenticator: authenticator)
            #expect(verify.status == 200, "\(verify.text)")
            #expect(TestSession(try await PasskeyRoutesTests.signIn(server, &authenticator))?.userID == userID)
        }
    }

    @Test("a missing, forged or expired ticket, a missing or wrong CSRF value, or a cross-site post is refused and changes nothing")
    func refusals() async throws {
        try await server { server in
            let (cookie, form, before) = try await recoveryForm(server, "hp-refuse@example.com")
            let csrf = try #require(form.csrf)
            var authenticator = SoftwareAuthenticator()
            authenticator.userHandle = Array(before.userID.utf8)
            let ticket = String(cookie.dropFirst("latchkey_form_ticket=".count))
            var forged = ticket.split(separator: ".").map(String.init)
            forged[3] = String(Int(forged[3])! + 3600)
            let forgedCookie = "latchkey_form_ticket=" + forged.joined(separator: ".")
            // A genuine challenge and credential, so only the authorisation is wrong.
            let options = try await post(server, "/welcome/passkey/registration/options", ["csrf": csrf], cookie: cookie)
            let id = try #require(options["challenge_id"] as? String)
            let challenge = try PasskeyRoutesTests.bytes((options["options"] as? [String: Any])?["challenge"])
            let credential = PasskeyRoutesTests.credentialJSON(authenticator.register(challenge: challenge), id: authenticator.credentialID)

            let attempts: [(String, String?, String?, [(String, String)], String)] = [
                ("no ticket", nil, csrf, [], "form_expired"),
                ("a forged ticket", forgedCookie, csrf, [], "form_expired"),
                ("no CSRF value", cookie, nil, [], "request_forbidden"),
                ("a wrong CSRF value", cookie, (csrf.hasPrefix("x") ? "y" : "x") + csrf.dropFirst(), [], "request_forbidden"),
                ("cross-site", cookie, csrf, [("Sec-Fetch-Site", "cross-site")], "request_forbidden"),
                ("another origin", cookie, csrf, [("Origin", "https://evil.example.net")], "request_forbidden"),
            ]
            for (name, cookie, csrf, headers, code) in attempts {
                var body: [String: any Sendable] = ["challenge_id": id, "credential": credential]
                if let csrf { body["csrf"] = csrf }
                for path in ["/welcome/passkey/registration/options", "/welcome/passkey/registration/verify"] {
                    let refused = try await post(server, path, body, cookie: cookie, headers: headers)
                    #expect(refused.status == 403 && refused.errorCode == code, "\(name) \(path): \(refused.text)")
                    #expect(refused["msg"] is String, "a message for the page to show")
                }
            }
            #expect(try await passkeyCount(server, before.userID) == 0)
            #expect(try await server.refresh(before.refreshToken).status == 200, "no session ended")

            // The genuine post still works with the challenge the refused attempts named.
            let genuine = try await post(
                server, "/welcome/passkey/registration/verify", ["csrf": csrf, "challenge_id": id, "credential": credential], cookie: cookie)
            #expect(genuine.status == 200, "\(genuine.text)")
        }
    }

    @Test("a refused credential spends its challenge (a replay is refused) but not the ticket; an expired ticket is refused")
    func replayAndExpiry() async throws {
        try await server { server in
            let (cookie, form, before) = try await recoveryForm(server, "hp-replay@example.com")
            let csrf = try #require(form.csrf)
            var authenticator = SoftwareAuthenticator()
            authenticator.userHandle = Array(before.userID.utf8)
            let options = try await post(server, "/welcome/passkey/registration/options", ["csrf": csrf], cookie: cookie)
            let id = try #require(options["challenge_id"] as? String)
            let challenge = try PasskeyRoutesTests.bytes((options["options"] as? [String: Any])?["challenge"])
            let wrong = PasskeyRoutesTests.credentialJSON(
                authenticator.register(challenge: challenge, origin: "https://evil.example"), id: authenticator.credentialID)
            let refused = try await post(
                server, "/welcome/passkey/registration/verify", ["csrf": csrf, "challenge_id": id, "credential": wrong], cookie: cookie)
            #expect(refused.status == 400 && refused.errorCode == "webauthn_verification_failed")
            let good = PasskeyRoutesTests.credentialJSON(authenticator.register(challenge: challenge), id: authenticator.credentialID)
            let replayed = try await post(
                server, "/welcome/passkey/registration/verify", ["csrf": csrf, "challenge_id": id, "credential": good], cookie: cookie)
            #expect(replayed.status == 400 && replayed.errorCode == "webauthn_challenge_not_found")
            #expect(try await passkeyCount(server, before.userID) == 0)
            #expect(try await server.request(.GET, "/welcome/password", headers: [("Cookie", cookie)]).status == 200, "the form is still usable")

            server.clock.advance(by: HostedPages.formTTL + 1)
            let (lateOptions, _) = try await addPasskey(server, cookie: cookie, csrf: csrf, authenticator: authenticator)
            #expect(lateOptions.status == 403 && lateOptions.errorCode == "form_expired")
            #expect(try await passkeyCount(server, before.userID) == 0)
        }
    }

    @Test("a user with a verified second factor is told to add the passkey in the app; the routes refuse (a recovery session is aal1)")
    func secondFactor() async throws {
        try await server { server in
            let session = try await server.signUp("hp-mfa@example.com", Self.password)
            _ = try await MFATests.enrollAndVerify(server, session)
            #expect(try await server.request(.POST, "/recover", json: ["email": "hp-mfa@example.com"]).status == 200)
            let followed = try await server.request(
                .GET, "/verify?token=\(try server.linkToken(to: "hp-mfa@example.com", type: "recovery"))&type=recovery")
            let cookie = String(try #require(followed.headers.first(name: "Set-Cookie")).prefix { $0 != ";" })
            let form = try await server.request(.GET, "/welcome/password", headers: [("Cookie", cookie)])
            #expect(form.status == 200 && form.text.contains("two-step verification") && !form.text.contains("Add a passkey instead"))
            #expect(!form.text.contains("<script") && form.headers.first(name: "Content-Security-Policy") == HostedPageRoutes.contentSecurityPolicy)
            let refused = try await post(server, "/welcome/passkey/registration/options", ["csrf": try #require(form.csrf)], cookie: cookie)
            #expect(refused.status == 403 && refused.errorCode == "insufficient_aal" && (refused["msg"] as? String)?.contains("two-step") == true)
            #expect(try await passkeyCount(server, session.userID) == 0)
            #expect(try await server.request(.GET, "/welcome/password", headers: [("Cookie", cookie)]).status == 200, "the password form still works")
        }
    }

    // MARK: Signing in

    @Test("sign-in with a code challenge lands on redirect_to with ?code= that /token?grant_type=pkce exchanges, once")
    func signInWithPKCE() async throws {
        try await server { server in
            let session = try await server.signUp("hp-pkce@example.com", Self.password)
            var (authenticator, _) = try await PasskeyRoutesTests.register(server, session)
            let answer = try await signIn(
                server, &authenticator, ["redirect_to": Self.appRedirect, "code_challenge": PKCETests.s256, "code_challenge_method": "s256"])
            #expect(answer.status == 200 && answer.headers.first(name: "Cache-Control") == "no-store", "\(answer.text)")
            let location = try #require(answer["location"] as? String)
            #expect(location.hasPrefix(Self.appRedirect + "?code=") && !location.contains("#"), "\(location)")
            let code = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
            let exchanged = try await server.request(
                .POST, "/token?grant_type=pkce", json: ["auth_code": code, "code_verifier": PKCETests.verifier])
            let fresh = try #require(TestSession(exchanged), "\(exchanged.text)")
            #expect(fresh.userID == session.userID)
            #expect(try MFATests.methods(fresh.accessToken) == ["passkey"])
            let again = try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": code, "code_verifier": PKCETests.verifier])
            #expect(again.status != 200, "a code works once")
        }
    }

    @Test("sign-in without a code challenge lands with the session in the fragment; a redirect_to not on the allow list lands on the site URL")
    func signInImplicit() async throws {
        try await server { server in
            let session = try await server.signUp("hp-implicit@example.com", Self.password)
            var (authenticator, _) = try await PasskeyRoutesTests.register(server, session)
            let answer = try await signIn(server, &authenticator, ["redirect_to": Self.appRedirect])
            let location = try #require(answer["location"] as? String, "\(answer.text)")
            #expect(location.hasPrefix(Self.appRedirect + "#access_token="), "\(location)")
            var fragment = URLComponents()
            fragment.percentEncodedQuery = String(location.split(separator: "#", maxSplits: 1)[1])
            let items = Dictionary(uniqueKeysWithValues: (fragment.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(Set(items.keys) == ["access_token", "expires_at", "expires_in", "refresh_token", "token_type"])
            #expect(items["token_type"] == "bearer")
            let user = try await server.request(.GET, "/user", bearer: items["access_token"] ?? "")
            #expect(user.status == 200 && user["id"] as? String == session.userID)
            #expect(try await server.refresh(items["refresh_token"] ?? "").status == 200)

            for elsewhere in ["https://evil.example/steal", "com.evil.app://callback", ""] {
                let fallback = try await signIn(server, &authenticator, elsewhere.isEmpty ? [:] : ["redirect_to": elsewhere])
                let landed = try #require(fallback["location"] as? String, "\(fallback.text)")
                #expect(landed.hasPrefix(SoftwareAuthenticator.origin + "#access_token="), "\(elsewhere): \(landed)")
            }
        }
    }

    @Test("sign-in refusals: an unknown credential, a cross-site post, a malformed code challenge; nothing signs in")
    func signInRefusals() async throws {
        try await server { server in
            let session = try await server.signUp("hp-refused@example.com", Self.password)
            var (authenticator, _) = try await PasskeyRoutesTests.register(server, session)
            var stranger = SoftwareAuthenticator()
            stranger.userHandle = Array(session.userID.utf8)
            let unknown = try await signIn(server, &stranger, ["redirect_to": Self.appRedirect])
            #expect(unknown.status == 400 && unknown.errorCode == "webauthn_verification_failed" && unknown["location"] == nil)

            let (id, challenge) = try await PasskeyRoutesTests.signInOptions(server)
            let credential = PasskeyRoutesTests.credentialJSON(authenticator.assert(challenge: challenge))
            let crossSite = try await post(
                server, "/welcome/passkey/sign-in", ["challenge_id": id, "credential": credential], cookie: nil,
                headers: [("Sec-Fetch-Site", "cross-site")])
            #expect(crossSite.status == 403 && crossSite.errorCode == "request_forbidden")
            let malformed = try await post(
                server, "/welcome/passkey/sign-in",
                ["challenge_id": id, "credential": credential, "code_challenge": "short", "code_challenge_method": "s256"], cookie: nil)
            #expect(malformed.status == 400 && malformed.errorCode == "validation_failed")
            // Neither refusal spent the challenge: the genuine post signs in with it.
            let genuine = try await post(server, "/welcome/passkey/sign-in", ["challenge_id": id, "credential": credential], cookie: nil)
            #expect(genuine.status == 200 && (genuine["location"] as? String)?.contains("#access_token=") == true, "\(genuine.text)")
        }
    }
}
