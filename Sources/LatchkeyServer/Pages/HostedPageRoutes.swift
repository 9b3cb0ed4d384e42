import Foundation
import HTTPTypes
import Hummingbird

/// `GET /` and `/welcome/…`: the small HTML pages a browser lands on after following an email
/// link to a server whose site URL is the server itself (see ``HostedPages``).
///
/// Every page is rendered on the server from ``PageTemplates`` and answered with strict headers:
/// a Content-Security-Policy that allows only the page's own stylesheet and forms posting back to
/// it, no framing, no referrer, no caching, no sniffing. Errors become pages, never JSON. Pages
/// have no script, except those that offer passkeys (``HostedPasskeys``): they load the one
/// same-origin `passkey.js`, and their policy also allows exactly that script and requests to
/// the server itself (`HostedPageRoutes+Passkeys.swift`).
struct HostedPageRoutes: AuthFeature {
    let dependencies: FeatureDependencies
    let templates: PageTemplates
    /// `GET /`, `/welcome/…` and where `GET /verify` lands when the site URL is the server itself.
    let hostedPages: HostedPages
    /// Passkeys on the hosted pages: `/welcome/sign-in` and `/welcome/passkey/…`.
    let hostedPasskeys: HostedPasskeys

    init(_ dependencies: FeatureDependencies) {
        self.dependencies = dependencies
        templates = dependencies.pageTemplates
        let pages = dependencies.hostedPages
        hostedPages = pages
        let ceremonies = dependencies.ceremonies
        hostedPasskeys = HostedPasskeys(
            pages: pages, registration: PasskeyRegistration(ceremonies: ceremonies),
            signIn: PasskeySignIn(ceremonies: ceremonies, limits: dependencies.limits, sessions: dependencies.sessions),
            store: dependencies.store, clock: dependencies.clock, settings: dependencies.configuration.passkeys,
            redirects: dependencies.linkSettings.redirects, captchaEnabled: dependencies.configuration.captcha.enabled)
    }

    /// The pages' Content-Security-Policy.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    /// The policy of a page that runs `passkey.js`: the same, plus the script and its requests.
    static let scriptContentSecurityPolicy = contentSecurityPolicy + "; script-src 'self'; connect-src 'self'"

    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy: contentSecurityPolicy,
        .latchkeyReferrerPolicy: "no-referrer",
        .cacheControl: "no-store",
        .xContentTypeOptions: "nosniff",
        .latchkeyFrameOptions: "DENY",
        .latchkeyOpenerPolicy: "same-origin",
    ]

    func register(on router: Router<AuthRequestContext>) {
        let pages = hostedPages
        router.get("/") { request, _ in
            // Where a flow lands when the server is its own site: a sign-in at a provider that
            // failed says why (the session itself, in a fragment, never reaches the server).
            let query = request.uri.queryParameters
            var values: [String: any Sendable] = [:]
            if let failure = query.get("error_description") ?? query.get("error"), !failure.isEmpty {
                values["failure"] = String(failure.prefix(300))
            } else if query.get("code") != nil {
                values["codeArrived"] = true
            }
            return page("home", title: "Latchkey", values: values, assets: "welcome/")
        }
        router.get("/welcome/style.css") { _, _ in asset(templates.stylesheet, contentType: "text/css; charset=utf-8") }
        router.get("/welcome/confirmed") { _, _ in page("confirmed", title: "Email confirmed") }
        router.get("/welcome/email-changed") { request, _ in
            // `?pending`: the first of a secure email change's two confirmations.
            let pending = request.uri.queryParameters.get("pending") != nil
            return page("email-changed", title: pending ? "One more confirmation" : "Email changed", values: ["pending": pending])
        }
        router.get("/welcome/password-changed") { _, _ in page("password-changed", title: "Password changed") }
        router.get("/welcome/sent") { _, _ in page("sent", title: "Check your email") }
        router.get("/welcome/link-error") { request, _ in
            let query = request.uri.queryParameters
            return linkError(code: query.get("code"), type: query.get("type"), status: .ok)
        }
        router.get("/welcome/password") { request, _ in
            do {
                return try await passwordPage(
                    try await pages.passwordForm(ticket: request.cookies[HostedPages.ticketCookie]?.value), error: nil, status: .ok)
            } catch let refusal as HostedPages.Refusal {
                return try await refused(refusal)
            }
        }
        router.post("/welcome/password") { request, context in
            let form = try await Self.form(request, context: context)
            do {
                try await pages.changePassword(
                    ticket: request.cookies[HostedPages.ticketCookie]?.value, csrf: form["csrf"], password: form["password"],
                    confirmation: form["password_confirmation"], crossSite: Self.isCrossSite(request), ipAddress: context.clientIP)
                var response = Response(status: .seeOther, headers: [.location: "password-changed", .cacheControl: "no-store"])
                response.headers[.setCookie] = ticketCookie(value: "", maxAge: 0)
                return response
            } catch let refusal as HostedPages.Refusal {
                return try await refused(refusal)
            }
        }
        // "Check your email" whether or not the address has an account, in the same time (ResponsePadding).
        router.group().add(middleware: dependencies.padding("hosted-resend")).post("/welcome/resend") { request, context in
            let form = try await Self.form(request, context: context)
            let type = form["type"]
            guard !Self.isCrossSite(request) else { return linkError(code: "bad_request", type: type, status: .forbidden) }
            do {
                // As GoTrue's /recover and /resend: no email link while email sign-in is off.
                guard dependencies.configuration.emailEnabled else { throw AuthError.emailLinksDisabled }
                try await pages.resend(type: type, email: form["email"], ipAddress: context.clientIP)
                return Response(status: .seeOther, headers: [.location: "sent", .cacheControl: "no-store"])
            } catch let error as AuthError {
                return linkError(code: "otp_expired", type: type, status: error.status, formError: Self.resendProblem(error))
            }
        }
        registerPasskeys(on: router)
    }

    /// `GET /verify` when the link lands on these pages: a 303 to the page, with the form
    /// ticket's cookie for a set-new-password form.
    static func verifyLanding(_ request: Request, context: AuthRequestContext, pages: HostedPages) async throws -> Response {
        let query = request.uri.queryParameters
        let landing = try await pages.follow(type: query.get("type"), token: query.get("token"), ipAddress: context.clientIP)
        var headers: HTTPFields = [.location: landing.location, .cacheControl: "no-store", .latchkeyReferrerPolicy: "no-referrer"]
        if let ticket = landing.ticket { headers[.setCookie] = ticketCookie(value: ticket, maxAge: Int(HostedPages.formTTL), pages: pages) }
        return Response(status: .seeOther, headers: headers)
    }

    // MARK: Pages

    /// A static file of the pages (the stylesheet, the passkey script): the pages' security
    /// headers, cacheable for an hour.
    func asset(_ text: String, contentType: String) -> Response {
        var headers = Self.securityHeaders
        headers[.contentType] = contentType
        headers[.cacheControl] = "public, max-age=3600"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The page `name`; `script`: it loads `passkey.js` (the policy allows it).
    func page(
        _ name: String, title: String, values: [String: any Sendable] = [:], assets: String = "", status: HTTPResponse.Status = .ok,
        script: Bool = false
    ) -> Response {
        var all: [String: any Sendable] = ["title": title, "serviceName": "Latchkey", "assets": assets, "actions": assets]
        all.merge(values) { _, new in new }
        var headers = Self.securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        if script { headers[.contentSecurityPolicy] = Self.scriptContentSecurityPolicy }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: templates.render(name, all))))
    }

    private func linkError(code: String?, type: String?, status: HTTPResponse.Status, formError: String? = nil) -> Response {
        let type = type.flatMap { ["signup", "invite", "recovery", "magiclink", "email_change"].contains($0) ? $0 : nil }
        let (heading, message): (String, String) =
            switch code {
            case "over_request_rate_limit", "over_email_send_rate_limit":
                ("Too many attempts", "Too many links were requested or tried from here. Wait a few minutes, then request a new one.")
            case "user_banned": ("Account suspended", "This account cannot be used at the moment.")
            case "email_exists": ("Address already in use", "Another account already uses this email address.")
            case "form_expired":
                ("This form has expired", "The form was already used or is too old. Request a new link to choose a password.")
            default: ("Link expired or already used", "This link has expired or was already used. Request a new one.")
            }
        var values: [String: any Sendable] = [
            "heading": heading, "message": message, "canResend": HostedPages.canResend(type: type), "type": type ?? "",
            "resendLabel": type == "recovery" ? "Send a new password reset link" : "Send a new link",
        ]
        if let formError { values["error"] = formError }
        return page("link-error", title: heading, values: values, status: status)
    }

    /// The set-new-password form, with "Add a passkey instead" when the pages offer passkeys.
    private func passwordPage(_ form: HostedPages.PasswordForm, error: String?, status: HTTPResponse.Status) async throws -> Response {
        let offer = try await hostedPasskeys.offer(on: form)
        var values: [String: any Sendable] = [
            "heading": form.isInvitation ? "Choose your password" : "Choose a new password",
            "intro": form.isInvitation ? "Choose the password for your account" : "Choose a new password for",
            "email": form.email, "csrf": form.csrf, "minimumLength": String(hostedPages.minimumPasswordLength),
            "passkey": offer == .passkey, "passkeyNeedsSecondFactor": offer == .needsSecondFactor,
        ]
        if let error { values["error"] = error }
        return page("password", title: values["heading"] as? String ?? "", values: values, status: status, script: offer == .passkey)
    }

    private func refused(_ refusal: HostedPages.Refusal) async throws -> Response {
        switch refusal {
        case .formExpired(let isInvitation):
            var response = linkError(code: "form_expired", type: isInvitation ? "invite" : "recovery", status: .forbidden)
            response.headers[.setCookie] = ticketCookie(value: "", maxAge: 0)
            return response
        case .forged:
            return linkError(code: "form_expired", type: "recovery", status: .forbidden)
        case .unusablePassword(let form, let message):
            return try await passwordPage(form, error: message, status: .unprocessableContent)
        }
    }

    func ticketCookie(value: String, maxAge: Int) -> String {
        Self.ticketCookie(value: value, maxAge: maxAge, pages: hostedPages)
    }

    private static func ticketCookie(value: String, maxAge: Int, pages: HostedPages) -> String {
        "\(HostedPages.ticketCookie)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (pages.isSecure ? "; Secure" : "")
    }

    // MARK: Requests

    /// An `application/x-www-form-urlencoded` body (at most 16 KB) as name → first value.
    static func form(_ request: Request, context: AuthRequestContext) async throws -> [String: String] {
        FormEncoding.fields(String(buffer: try await request.body.collect(upTo: 16 << 10)))
    }

    /// Whether the browser says the request came from another site: `Sec-Fetch-Site` other than
    /// same-origin or none, or an `Origin` (other than `null`, which a no-referrer page sends)
    /// whose host is not the one the request was sent to.
    static func isCrossSite(_ request: Request) -> Bool {
        if let site = request.headers[.latchkeyFetchSite], !["same-origin", "none"].contains(site) { return true }
        if let origin = request.headers[.origin], origin != "null" {
            guard let host = URL(string: origin).flatMap({ url in url.host.map { $0 + (url.port.map { ":\($0)" } ?? "") } }),
                let requestHost = request.head.authority
            else { return true }
            return host.lowercased() != requestHost.lowercased()
        }
        return false
    }

    private static func resendProblem(_ error: AuthError) -> String {
        if error.isRateLimit { return "Too many emails were requested. Wait a few minutes, then try again." }
        if error.code == "validation_failed" || error.code == "email_address_invalid" { return "Enter a valid email address." }
        return error.message
    }
}

extension HTTPField.Name {
    fileprivate static let latchkeyReferrerPolicy = HTTPField.Name("Referrer-Policy")!
    fileprivate static let latchkeyFrameOptions = HTTPField.Name("X-Frame-Options")!
    fileprivate static let latchkeyOpenerPolicy = HTTPField.Name("Cross-Origin-Opener-Policy")!
    fileprivate static let latchkeyFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}
