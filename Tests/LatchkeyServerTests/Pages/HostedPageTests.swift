import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// The server's own pages for email links, when the site URL is the server itself (no
/// `--site-url`): where each link lands, the set-new-password form's ticket and CSRF rules, the
/// pages' headers, and that apps with their own redirect URLs still get GoTrue's fragments.
@Suite("Hosted pages")
struct HostedPageTests {
    static let password = "correct horse battery"
    static let newPassword = "a brand new passphrase"

    /// A standalone server: no site URL, sign-ups confirmed by email.
    func standalone(
        autoconfirm: Bool = false, configure: @escaping (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer) async throws -> Void
    ) async throws {
        try await TestServer.with(configure: {
            $0.autoconfirm = autoconfirm
            configure(&$0)
        }) { server in try await body(server) }
    }

    // MARK: Pages

    @Test("GET / and every page are HTML with strict security headers and no script")
    func headers() async throws {
        try await standalone { server in
            for path in [
                "/", "/welcome/confirmed", "/welcome/email-changed", "/welcome/link-error?code=otp_expired&type=signup",
                "/welcome/password", "/welcome/password-changed", "/welcome/sent",
            ] {
                let page = try await server.request(.GET, path)
                #expect(page.headers.first(name: "Content-Type") == "text/html; charset=utf-8", "\(path)")
                page.expectPageHeaders(path)
                #expect(page.text.hasPrefix("<!doctype html>"), "\(path)")
                #expect(!page.text.lowercased().contains("<script"), "\(path)")
                #expect(page.text.contains("<html lang=\"en\">"), "\(path)")
            }
            let home = try await server.request(.GET, "/")
            #expect(home.status == 200 && home.text.contains("Latchkey is running"))
            #expect(home.text.contains("href=\"welcome/style.css\""))
            let css = try await server.request(.GET, "/welcome/style.css")
            #expect(css.status == 200 && css.headers.first(name: "Content-Type") == "text/css; charset=utf-8")
            #expect(css.text.contains("main {"))
        }
    }

    @Test("a sign-up link lands on 'Email confirmed', hands out no session, and works once; a spent link lands on the error page with a resend form")
    func signUpLink() async throws {
        try await standalone { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "h1@example.com", "password": Self.password])
            let token = try server.linkToken(to: "h1@example.com", type: "signup")
            let followed = try await server.request(.GET, "/verify?token=\(token)&type=signup")
            #expect(followed.status == 303)
            #expect(followed.headers.first(name: "Location") == "welcome/confirmed")
            #expect(followed.headers.first(name: "Set-Cookie") == nil)
            #expect(try await server.signIn("h1@example.com").status == 200, "the address is confirmed")
            #expect(try await server.request(.GET, "/welcome/confirmed").text.contains("Email confirmed"))

            let again = try await server.request(.GET, "/verify?token=\(token)&type=signup")
            #expect(again.headers.first(name: "Location") == "welcome/link-error?code=otp_expired&type=signup")
            let error = try await server.request(.GET, "/welcome/link-error?code=otp_expired&type=signup")
            #expect(error.text.contains("Link expired or already used"))
            #expect(error.text.contains("role=\"alert\""))
            #expect(error.text.contains("<form method=\"post\" action=\"resend\""))
            #expect(error.text.contains("<label for=\"email\">"))
            #expect(error.text.contains("name=\"type\" value=\"signup\""))
        }
    }

    @Test("the resend form mails a new confirmation link, says the same for an unknown address, and refuses another site's post")
    func resendForm() async throws {
        try await standalone { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "h2@example.com", "password": Self.password])
            #expect(try server.mailCount(to: "h2@example.com") == 1)
            server.clock.advance(by: 61)  // one email per address per minute
            let sent = try await server.form("/welcome/resend", ["type": "signup", "email": "h2@example.com"])
            #expect(sent.status == 303 && sent.headers.first(name: "Location") == "sent", "\(sent.status) \(sent.text)")
            #expect(try server.mailCount(to: "h2@example.com") == 2)
            let unknown = try await server.form("/welcome/resend", ["type": "signup", "email": "nobody@example.com"])
            #expect(unknown.status == 303 && unknown.headers.first(name: "Location") == "sent")
            let crossSite = try await server.form(
                "/welcome/resend", ["type": "signup", "email": "h2@example.com"], headers: [("Sec-Fetch-Site", "cross-site")])
            #expect(crossSite.status == 403)
            #expect(try server.mailCount(to: "h2@example.com") == 2)
            let invalid = try await server.form("/welcome/resend", ["type": "signup", "email": "not an address"])
            #expect(invalid.status == 400 && invalid.text.contains("Enter a valid email address"))
            #expect(invalid.text.contains("aria-invalid=\"true\""))
        }
    }

    @Test("with email sign-in off, the resend form answers GoTrue's refusal and mails nothing")
    func resendFormEmailOff() async throws {
        try await standalone(configure: { $0.emailEnabled = false }) { server in
            for type in ["signup", "recovery", "email_change"] {
                let refused = try await server.form("/welcome/resend", ["type": type, "email": "off@example.com"])
                #expect(refused.status == 400 && refused.text.contains("Email logins are disabled"), "\(type): \(refused.status) \(refused.text)")
                #expect(refused.text.contains("aria-invalid=\"true\""), "\(type)")
            }
            #expect(try server.mailCount(to: "off@example.com") == 0)
        }
    }

    @Test("the first email-change link lands on 'One more confirmation', the second on 'Email changed'")
    func emailChangeLink() async throws {
        try await standalone { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "h3@example.com", "password": Self.password])
            let confirm = try server.linkToken(to: "h3@example.com", type: "signup")
            let session = try #require(TestSession(try await server.request(.POST, "/verify", json: ["type": "signup", "token_hash": confirm])))
            #expect(try await server.request(.PUT, "/user", json: ["email": "h3-new@example.com"], bearer: session.accessToken).status == 200)
            let token = try server.linkToken(to: "h3-new@example.com", type: "email_change")
            let half = try await server.request(.GET, "/verify?token=\(token)&type=email_change")
            #expect(half.headers.first(name: "Location") == "welcome/email-changed?pending")
            #expect(try await server.signIn("h3-new@example.com").status != 200, "not changed yet")
            #expect(try await server.request(.GET, "/welcome/email-changed?pending").text.contains("One more confirmation"))
            let current = try server.linkToken(to: "h3@example.com", type: "email_change")
            let followed = try await server.request(.GET, "/verify?token=\(current)&type=email_change")
            #expect(followed.headers.first(name: "Location") == "welcome/email-changed")
            #expect(try await server.signIn("h3-new@example.com").status == 200)
            #expect(try await server.request(.GET, "/welcome/email-changed").text.contains("Email changed"))
        }
    }

    // MARK: Recovery

    /// Signs up `email`, asks for recovery, follows the link, and returns the ticket cookie and
    /// the form page, plus the session the user had before.
    func recoveryForm(_ server: TestServer, _ email: String) async throws -> (cookie: String, form: TestResponse, before: TestSession) {
        let before = try await server.signUp(email, Self.password)
        #expect(try await server.request(.POST, "/recover", json: ["email": email]).status == 200)
        let token = try server.linkToken(to: email, type: "recovery")
        let followed = try await server.request(.GET, "/verify?token=\(token)&type=recovery")
        #expect(followed.status == 303)
        let location = try #require(followed.headers.first(name: "Location"))
        #expect(location == "welcome/password", "no token, session or ticket in the URL")
        let setCookie = try #require(followed.headers.first(name: "Set-Cookie"))
        #expect(setCookie.hasPrefix("latchkey_form_ticket=v1.r."))
        for attribute in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=900"] { #expect(setCookie.contains(attribute), "\(attribute)") }
        #expect(!setCookie.contains("Secure"), "http here; Secure on https")
        let cookie = String(setCookie.prefix { $0 != ";" })
        let form = try await server.request(.GET, "/welcome/password", headers: [("Cookie", cookie)])
        #expect(form.status == 200)
        return (cookie, form, before)
    }

    @Test("recovery: link → form → new password; every session ends, the old password stops working, and the ticket works once")
    func recovery() async throws {
        try await standalone(autoconfirm: true) { server in
            let (cookie, form, before) = try await recoveryForm(server, "r1@example.com")
            form.expectPageHeaders("form")
            #expect(form.text.contains("Choose a new password"))
            #expect(form.text.contains("r1@example.com"))
            #expect(form.text.contains("<label for=\"password\">") && form.text.contains("autocomplete=\"new-password\""))
            #expect(!form.text.contains(cookie.dropFirst("latchkey_form_ticket=".count)), "the ticket is only in the HttpOnly cookie")
            let csrf = try #require(form.csrf)

            let changed = try await server.form(
                "/welcome/password", ["csrf": csrf, "password": Self.newPassword, "password_confirmation": Self.newPassword], cookie: cookie)
            #expect(changed.status == 303)
            #expect(changed.headers.first(name: "Location") == "password-changed")
            #expect(changed.headers.first(name: "Set-Cookie")?.contains("Max-Age=0") == true, "the cookie is cleared")
            #expect(try await server.request(.GET, "/welcome/password-changed").text.contains("Password changed"))

            #expect(try await server.signIn("r1@example.com", Self.newPassword).status == 200)
            #expect(try await server.signIn("r1@example.com", Self.password).status == 400)
            #expect(try await server.refresh(before.refreshToken).status != 200, "a new password ends the other sessions")
            #expect(try await server.auditActions().contains("user_updated_password"))

            // The same ticket and CSRF field again: refused, nothing changed.
            let reused = try await server.form(
                "/welcome/password", ["csrf": csrf, "password": "yet another passphrase", "password_confirmation": "yet another passphrase"],
                cookie: cookie)
            #expect(reused.status == 403)
            #expect(reused.text.contains("This form has expired"))
            #expect(reused.text.contains("name=\"type\" value=\"recovery\""), "with a form to ask for a new link")
            #expect(try await server.signIn("r1@example.com", Self.newPassword).status == 200)
            #expect(try await server.request(.GET, "/welcome/password", headers: [("Cookie", cookie)]).status == 403)
        }
    }

    @Test("a missing or wrong CSRF field, a missing or forged ticket, or a cross-site post is refused and changes nothing")
    func csrfRules() async throws {
        try await standalone(autoconfirm: true) { server in
            let (cookie, form, _) = try await recoveryForm(server, "r2@example.com")
            let csrf = try #require(form.csrf)
            let fields = ["password": Self.newPassword, "password_confirmation": Self.newPassword]
            let ticket = String(cookie.dropFirst("latchkey_form_ticket=".count))
            var forged = ticket.split(separator: ".").map(String.init)
            forged[3] = String(Int(forged[3])! + 3600)
            let attempts: [(String, TestResponse)] = [
                ("no CSRF field", try await server.form("/welcome/password", fields, cookie: cookie)),
                (
                    "wrong CSRF field",
                    try await server.form(
                        "/welcome/password", fields.merging(["csrf": (csrf.hasPrefix("x") ? "y" : "x") + csrf.dropFirst()]) { $1 }, cookie: cookie)
                ),
                ("no ticket", try await server.form("/welcome/password", fields.merging(["csrf": csrf]) { $1 })),
                (
                    "a forged expiry",
                    try await server.form(
                        "/welcome/password", fields.merging(["csrf": csrf]) { $1 }, cookie: "latchkey_form_ticket=" + forged.joined(separator: "."))
                ),
                (
                    "cross-site",
                    try await server.form(
                        "/welcome/password", fields.merging(["csrf": csrf]) { $1 }, cookie: cookie, headers: [("Sec-Fetch-Site", "cross-site")])
                ),
                (
                    "another origin",
                    try await server.form(
                        "/welcome/password", fields.merging(["csrf": csrf]) { $1 }, cookie: cookie, headers: [("Origin", "https://evil.example.net")])
                ),
            ]
            for (name, response) in attempts {
                #expect(response.status == 403, "\(name)")
                #expect(response.text.contains("role=\"alert\""), "\(name)")
                response.expectPageHeaders(name)
            }
            #expect(try await server.signIn("r2@example.com", Self.password).status == 200, "nothing changed")
            #expect(try await server.signIn("r2@example.com", Self.newPassword).status == 400)

            // The genuine form still works after the refused attempts (Origin: null is what a no-referrer page sends).
            let changed = try await server.form(
                "/welcome/password", fields.merging(["csrf": csrf]) { $1 }, cookie: cookie,
                headers: [("Origin", "null"), ("Sec-Fetch-Site", "same-origin")])
            #expect(changed.status == 303)
            #expect(try await server.signIn("r2@example.com", Self.newPassword).status == 200)
        }
    }

    @Test("an expired ticket is refused and changes nothing")
    func expiredTicket() async throws {
        try await standalone(autoconfirm: true) { server in
            let (cookie, form, _) = try await recoveryForm(server, "r3@example.com")
            let csrf = try #require(form.csrf)
            server.clock.advance(by: HostedPages.formTTL + 1)
            #expect(try await server.request(.GET, "/welcome/password", headers: [("Cookie", cookie)]).status == 403)
            let late = try await server.form(
                "/welcome/password", ["csrf": csrf, "password": Self.newPassword, "password_confirmation": Self.newPassword], cookie: cookie)
            #expect(late.status == 403)
            #expect(try await server.signIn("r3@example.com", Self.password).status == 200)
        }
    }

    @Test("a too-short or mistyped password shows the form again with the problem announced; the ticket stays usable")
    func unusablePassword() async throws {
        try await standalone(autoconfirm: true) { server in
            let (cookie, form, _) = try await recoveryForm(server, "r4@example.com")
            let csrf = try #require(form.csrf)
            let short = try await server.form(
                "/welcome/password", ["csrf": csrf, "password": "short", "password_confirmation": "short"], cookie: cookie)
            #expect(short.status == 422)
            #expect(short.text.contains("role=\"alert\"") && short.text.contains("aria-invalid=\"true\""))
            #expect(short.text.contains("at least 8 characters") || short.text.contains("8 characters"))
            let mistyped = try await server.form(
                "/welcome/password", ["csrf": csrf, "password": Self.newPassword, "password_confirmation": Self.newPassword + "x"], cookie: cookie)
            #expect(mistyped.status == 422 && mistyped.text.contains("not the same"))
            #expect(mistyped.csrf == csrf)
            #expect(try await server.signIn("r4@example.com", Self.password).status == 200)
            let changed = try await server.form(
                "/welcome/password", ["csrf": csrf, "password": Self.newPassword, "password_confirmation": Self.newPassword], cookie: cookie)
            #expect(changed.status == 303)
        }
    }

    @Test("an invitation link lands on the form to choose a first password")
    func invitation() async throws {
        try await standalone { server in
            let invited = try await server.request(.POST, "/invite", json: ["email": "i1@example.com"], bearer: server.server.serviceRoleKey)
            #expect(invited.status == 200)
            let token = try server.linkToken(to: "i1@example.com", type: "invite")
            let followed = try await server.request(.GET, "/verify?token=\(token)&type=invite")
            #expect(followed.headers.first(name: "Location") == "welcome/password")
            let cookie = String(try #require(followed.headers.first(name: "Set-Cookie")).prefix { $0 != ";" })
            let form = try await server.request(.GET, "/welcome/password", headers: [("Cookie", cookie)])
            #expect(form.text.contains("Choose your password"))
            let changed = try await server.form(
                "/welcome/password", ["csrf": try #require(form.csrf), "password": Self.newPassword, "password_confirmation": Self.newPassword],
                cookie: cookie)
            #expect(changed.status == 303)
            #expect(try await server.signIn("i1@example.com", Self.newPassword).status == 200)
        }
    }

    // MARK: Apps keep GoTrue's behaviour

    @Test("an app's own redirect URL, a configured site URL and PKCE links still get GoTrue's fragment or ?code=")
    func appsKeepFragments() async throws {
        try await standalone(configure: { $0.additionalRedirectURLs = ["com.example.app://callback"] }) { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "a1@example.com", "password": Self.password])
            let token = try server.linkToken(to: "a1@example.com", type: "signup")
            let followed = try await server.request(.GET, "/verify?token=\(token)&type=signup&redirect_to=com.example.app://callback")
            let location = try #require(followed.headers.first(name: "Location"))
            #expect(location.hasPrefix("com.example.app://callback#access_token="), "\(location)")

            _ = try await server.request(
                .POST, "/signup",
                json: [
                    "email": "a2@example.com", "password": Self.password, "code_challenge": PKCETests.s256, "code_challenge_method": "S256",
                ])
            let pkce = try server.linkToken(to: "a2@example.com", type: "signup")
            let pkceFollowed = try await server.request(.GET, "/verify?token=\(pkce)&type=signup")
            #expect(try #require(pkceFollowed.headers.first(name: "Location")).contains("?code="))
        }
        try await standalone(configure: { $0.siteURL = "https://app.example.com" }) { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "a3@example.com", "password": Self.password])
            let token = try server.linkToken(to: "a3@example.com", type: "signup")
            let followed = try await server.request(.GET, "/verify?token=\(token)&type=signup")
            #expect(try #require(followed.headers.first(name: "Location")).hasPrefix("https://app.example.com#access_token="))
        }
    }

    // MARK: Templates

    @Test("--page-templates replaces templates by file name; a template that cannot be parsed stops the start")
    func templateOverrides() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "{{>header}}<h1>Welcome aboard, {{title}}</h1>{{>footer}}".write(
            to: directory.appendingPathComponent("confirmed.mustache"), atomically: true, encoding: .utf8)
        try "body { color: teal; }".write(to: directory.appendingPathComponent("style.css"), atomically: true, encoding: .utf8)
        try await standalone(configure: { $0.pageTemplatesDirectory = directory }) { (server: TestServer) async throws -> Void in
            let confirmed = try await server.request(.GET, "/welcome/confirmed")
            let css = try await server.request(.GET, "/welcome/style.css")
            let home = try await server.request(.GET, "/")
            #expect(confirmed.text.contains("<h1>Welcome aboard, Email confirmed</h1>"))
            #expect(css.text == "body { color: teal; }")
            #expect(home.text.contains("Latchkey is running"), "the others keep their default")
        }
        try "{{#broken}}".write(to: directory.appendingPathComponent("home.mustache"), atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try PageTemplates.load(overrides: directory) }
        #expect(throws: ConfigurationError.self) { try PageTemplates.load(overrides: directory.appendingPathComponent("missing")) }
        #expect(PageTemplates.defaults.render("home", ["title": "<x>", "serviceName": "L"]).contains("&lt;x&gt;"), "values are escaped")
    }
}

extension TestServer {
    /// Posts an HTML form (`application/x-www-form-urlencoded`), with the ticket cookie if given.
    func form(_ path: String, _ fields: [String: String], cookie: String? = nil, headers: [(String, String)] = []) async throws -> TestResponse {
        var request = HTTPClientRequest(url: server.baseURL.absoluteString + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        if let cookie { request.headers.add(name: "Cookie", value: cookie) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
            .joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await client.execute(request, timeout: .seconds(120))
        let collected = try await response.body.collect(upTo: 1 << 20)
        return TestResponse(status: Int(response.status.code), headers: response.headers, body: Data(collected.readableBytesView))
    }
}

extension TestResponse {
    /// The hidden CSRF field of a set-new-password form.
    var csrf: String? {
        guard let range = text.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }

    func expectPageHeaders(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let csp = headers.first(name: "Content-Security-Policy") ?? ""
        for directive in ["default-src 'none'", "style-src 'self'", "form-action 'self'", "frame-ancestors 'none'"] {
            #expect(csp.contains(directive), "\(name): \(directive)", sourceLocation: sourceLocation)
        }
        #expect(headers.first(name: "Referrer-Policy") == "no-referrer", "\(name)", sourceLocation: sourceLocation)
        #expect(headers.first(name: "Cache-Control") == "no-store", "\(name)", sourceLocation: sourceLocation)
        #expect(headers.first(name: "X-Content-Type-Options") == "nosniff", "\(name)", sourceLocation: sourceLocation)
    }
}
