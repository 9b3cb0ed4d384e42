import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyWire

/// GoTrue's browser sign-in routes: `GET /authorize`, `GET` and `POST /callback` (Apple posts
/// its answer, `response_mode=form_post`), and `GET /user/identities/authorize` for a
/// signed-in user linking another identity (`skip_http_redirect=true` answers `{"url": …}`
/// instead of redirecting), and `POST /callback/link`, the answer to the page that asks before
/// such a link is made (``LinkConfirmation``).
struct BrowserSignInRoutes: AuthFeature {
    let dependencies: FeatureDependencies
    /// `GET /authorize`, `/callback`, `GET /user/identities/authorize`.
    let browserSignIn: BrowserSignIn

    init(_ dependencies: FeatureDependencies) {
        self.dependencies = dependencies
        browserSignIn = BrowserSignIn(
            shared: dependencies.shared,
            providers: BrowserProviders(
                settings: dependencies.configuration.external, directory: dependencies.directory, verifier: dependencies.idTokens,
                http: dependencies.http, clock: dependencies.clock, custom: dependencies.customProviders, origin: dependencies.origin),
            signIn: dependencies.providers, redirects: dependencies.linkSettings.redirects, appleTokens: dependencies.appleTokens)
    }

    func register(on router: Router<AuthRequestContext>) {
        let flows = browserSignIn
        let secure = dependencies.hostedPages.isSecure
        router.get("/authorize") { request, context in
            let start = try await Self.start(flows, request, linkingUserID: nil, bindsBrowser: true)
            return Response(
                status: .found,
                headers: [.location: start.url.absoluteString, .cacheControl: "no-store", .setCookie: Self.cookie(start.binding, secure: secure)])
        }
        let pages = HostedPageRoutes(dependencies)
        router.get("/callback") { request, context in
            var fields: [String: String] = [:]
            for (name, value) in request.uri.queryParameters where fields[String(name)] == nil { fields[String(name)] = String(value) }
            return await Self.callback(flows, request, fields: fields, context: context, pages: pages, secure: secure)
        }
        router.post("/callback") { request, context in
            let fields = try await HostedPageRoutes.form(request, context: context)
            return await Self.callback(flows, request, fields: fields, context: context, pages: pages, secure: secure)
        }
        router.post("/callback/link") { request, context in
            let fields = try await HostedPageRoutes.form(request, context: context)
            let location = await flows.confirmLink(
                fields: fields, binding: request.cookies[BrowserSignIn.confirmationCookie]?.value,
                crossSite: HostedPageRoutes.isCrossSite(request), ipAddress: context.clientIP)
            return Self.redirect(to: location, headers: [.setCookie: "\(BrowserSignIn.confirmationCookie)=; Path=/; Max-Age=0; HttpOnly"])
        }
        let signedIn = router.group("/user/identities").add(middleware: SignedInUserMiddleware(authentication: dependencies.authentication))
            .add(middleware: FirstPartySessionMiddleware())
            .add(middleware: FeatureSwitchMiddleware(enabled: dependencies.providers.settings.manualLinkingEnabled, refusal: .manualLinkingDisabled))
        signedIn.get("/authorize") { request, context in
            let user = try context.signedIn().user
            let skipRedirect = request.uri.queryParameters.get("skip_http_redirect") == "true"
            let start = try await Self.start(flows, request, linkingUserID: user.id, bindsBrowser: !skipRedirect)
            guard skipRedirect else {
                return Response(
                    status: .found,
                    headers: [.location: start.url.absoluteString, .cacheControl: "no-store", .setCookie: Self.cookie(start.binding, secure: secure)])
            }
            return try AuthorizationURL(url: start.url.absoluteString).response(from: request, context: context)
        }
    }

    private static func start(
        _ flows: BrowserSignIn, _ request: Request, linkingUserID: UUID?, bindsBrowser: Bool
    ) async throws
        -> BrowserSignIn.Start
    {
        let query = request.uri.queryParameters
        let parameters = query.map { (String($0.key), String($0.value)) }
        return try await flows.start(
            provider: query.get("provider"), redirectTo: query.get("redirect_to"), scopes: query.get("scopes"),
            codeChallenge: query.get("code_challenge"), codeChallengeMethod: query.get("code_challenge_method"), parameters: parameters,
            linkingUserID: linkingUserID, binding: request.cookies[BrowserSignIn.bindingCookie]?.value, bindsBrowser: bindsBrowser)
    }

    private static func callback(
        _ flows: BrowserSignIn, _ request: Request, fields: [String: String], context: AuthRequestContext, pages: HostedPageRoutes, secure: Bool
    ) async
        -> Response
    {
        let answer = await flows.callback(
            fields: fields, binding: request.cookies[BrowserSignIn.bindingCookie]?.value, ipAddress: context.clientIP)
        switch answer {
        case .redirect(let location):
            return redirect(to: location)
        case .confirmLink(let confirmation):
            var values: [String: any Sendable] = [
                "provider": confirmation.providerName, "accountEmail": confirmation.account, "ticket": confirmation.ticket,
                "sealed": confirmation.sealed,
            ]
            if let email = confirmation.identityEmail { values["identityEmail"] = email }
            var response = pages.page("link-identity", title: "Link \(confirmation.providerName)?", values: values, assets: "welcome/")
            let cookie = "\(BrowserSignIn.confirmationCookie)=\(confirmation.binding); Path=/; Max-Age=\(Int(BrowserSignIn.lifetime)); HttpOnly"
            response.headers[.setCookie] = cookie + (secure ? "; Secure; SameSite=Strict" : "; SameSite=Strict")
            return response
        }
    }

    private static func redirect(to location: String, headers extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.location: location, .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer"]
        headers.append(contentsOf: extra)
        return Response(status: .found, headers: headers)
    }

    /// The binding cookie: sent back with the provider's redirect, including Apple's cross-site
    /// `form_post` (which needs `SameSite=None`, allowed only with `Secure`, so over https).
    static func cookie(_ value: String, secure: Bool) -> String {
        let scope = "\(BrowserSignIn.bindingCookie)=\(value); Path=/; Max-Age=\(Int(BrowserSignIn.lifetime)); HttpOnly"
        return scope + (secure ? "; Secure; SameSite=None" : "; SameSite=Lax")
    }
}

/// `{"url": …}`: where an app opens the browser to link an identity.
struct AuthorizationURL: ResponseEncodable {
    var url: String
}
