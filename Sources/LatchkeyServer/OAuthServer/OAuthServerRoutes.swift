import Foundation
import Hummingbird
import LatchkeyWire

/// GoTrue's OAuth 2.1 server: Latchkey as the identity provider other apps, web sites and
/// agents sign their users in with.
///
/// Off by default: every route answers 404 `feature_disabled` then, as GoTrue's
/// `requireOAuthServerEnabled`, after the caller's check where GoTrue checks it first (an
/// administrator key, a signed-in user); `/.well-known/openid-configuration` is served either
/// way, as GoTrue's. Served: the client registry (`/admin/oauth/clients…`, and
/// `POST /oauth/clients/register` with dynamic registration on, rate limited), the
/// authorization request and the consent routes (``OAuthAuthorizations``), the token endpoint
/// (``OAuthTokens``), user info, discovery and the user's grants (``OAuthGrants``).
struct OAuthServerRoutes: AuthFeature {
    let authentication: BearerAuthentication
    let settings: OAuthServerSettings
    let limits: RateLimits
    let clients: OAuthClients
    let authorizations: OAuthAuthorizations
    let clientAuthentication: OAuthClientAuthentication
    let tokens: OAuthTokens
    let grants: OAuthGrants
    /// The server's own consent page, for apps that have none.
    let hostedConsent: HostedConsent
    /// The server's own "Apps that can sign in as you" page.
    let hostedGrants: HostedGrants
    /// Renders the hosted consent and apps pages.
    let pages: HostedPageRoutes
    /// Signs tokens; its issuer (known once the server has bound its port) roots the metadata.
    let signer: TokenSigner

    init(_ dependencies: FeatureDependencies) {
        authentication = dependencies.authentication
        settings = dependencies.configuration.oauthServer
        limits = dependencies.limits
        clients = OAuthClients(store: dependencies.store, clock: dependencies.clock)
        authorizations = OAuthAuthorizations(
            store: dependencies.store, clock: dependencies.clock, settings: settings, redirects: dependencies.linkSettings.redirects,
            signsIDTokens: dependencies.signer.signsAsymmetrically, origin: dependencies.origin, logger: dependencies.logger)
        let passwordCheck = HostedPasswordCheck(
            password: PasswordGrant(dependencies), authentication: dependencies.authentication, store: dependencies.store)
        hostedConsent = HostedConsent(
            authorizations: authorizations, passwordCheck: passwordCheck, tokens: dependencies.tokens,
            captchaEnabled: dependencies.configuration.captcha.enabled)
        pages = HostedPageRoutes(dependencies)
        clientAuthentication = OAuthClientAuthentication(store: dependencies.store)
        tokens = OAuthTokens(
            store: dependencies.store, clock: dependencies.clock, sessions: dependencies.sessions, refresh: RefreshGrant(dependencies),
            signer: dependencies.signer, logger: dependencies.logger)
        grants = OAuthGrants(store: dependencies.store, clock: dependencies.clock)
        hostedGrants = HostedGrants(
            grants: grants, passwordCheck: passwordCheck, store: dependencies.store, tokens: dependencies.tokens, clock: dependencies.clock,
            captchaEnabled: dependencies.configuration.captcha.enabled)
        signer = dependencies.signer
    }

    func register(on router: Router<AuthRequestContext>) {
        let enabled = FeatureSwitchMiddleware(enabled: settings.enabled, refusal: .oauthServerDisabled)
        let open = router.group().add(middleware: enabled)
        let dynamicRegistration = settings.enabled && settings.allowDynamicRegistration
        let discovery: @Sendable (Request, AuthRequestContext) async throws -> Response = { [signer] request, context in
            let metadata = OAuthServerMetadata(
                issuer: signer.issuer, algorithm: signer.signingAlgorithm.rawValue, dynamicRegistration: dynamicRegistration)
            var response = try metadata.response(from: request, context: context)
            response.headers[.cacheControl] = "public, max-age=600"
            return response
        }
        // RFC 8414 §3.1 puts the issuer's path after the well-known name; OpenID Connect
        // Discovery puts the well-known name after the issuer (served under /auth/v1 too).
        open.get("/.well-known/oauth-authorization-server", use: discovery)
        open.get("/.well-known/oauth-authorization-server/auth/v1", use: discovery)
        router.get("/.well-known/openid-configuration", use: discovery)

        // Anyone may ask, and each request stores an authorization: counted per IP first.
        open.group().add(middleware: RateLimitMiddleware { [limits] in try await limits.admitOAuthAuthorization(from: $0) })
            .get("/oauth/authorize") { request, _ in
                let query = Self.formQuery(request)
                let location = try await authorizations.authorize(
                    OAuthAuthorizations.Request(
                        clientID: query["client_id"], redirectURI: query["redirect_uri"], responseType: query["response_type"],
                        scope: query["scope"], state: query["state"], resource: query["resource"], codeChallenge: query["code_challenge"],
                        codeChallengeMethod: query["code_challenge_method"], nonce: query["nonce"]))
                return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
            }
        open.post("/oauth/token") { request, context in
            let basic = request.headers[.authorization]?.lowercased().hasPrefix("basic ") == true
            do {
                let fields = try await Self.tokenFields(request, context: context)
                let credentials = try OAuthClientAuthentication.credentials(authorization: request.headers[.authorization], fields: fields)
                let client = try await clientAuthentication.client(credentials)
                var response = try await tokens.token(fields, client: client, ipAddress: context.clientIP)
                    .response(from: request, context: context)
                response.headers[.cacheControl] = "no-store"
                return response
            } catch let error as AuthError {
                throw error.tokenEndpointError(basicAuthentication: basic)
            }
        }

        // The hosted consent page: its logo may come from the client's https site.
        let consentPolicy = HostedPageRoutes.contentSecurityPolicy.replacingOccurrences(of: "img-src 'self'", with: "img-src 'self' https:")
        open.get(RouterPath(HostedConsent.path)) { [hostedConsent, pages] request, _ in
            let values = try await hostedConsent.values(for: Self.formQuery(request)["authorization_id"])
            var response = pages.page("consent", title: "Allow an app", values: values, status: values["gone"] == nil ? .ok : .notFound)
            response.headers[.contentSecurityPolicy] = consentPolicy
            return response
        }
        open.post(RouterPath(HostedConsent.path)) { [hostedConsent, pages] request, context in
            let form = try await HostedPageRoutes.form(request, context: context)
            switch try await hostedConsent.answer(form, crossSite: HostedPageRoutes.isCrossSite(request), ipAddress: context.clientIP) {
            case .redirect(let url):
                var headers = HostedPageRoutes.securityHeaders
                headers[.location] = url
                return Response(status: .seeOther, headers: headers)
            case .page(let values, let status):
                var response = pages.page("consent", title: "Allow an app", values: values, status: HTTPResponse.Status(code: status))
                response.headers[.contentSecurityPolicy] = consentPolicy
                return response
            }
        }

        // The hosted "Apps that can sign in as you" page: the apps' logos may come from their https sites.
        let appsPage: @Sendable (HostedGrants.Page) -> Response = { [pages] page in
            var response = pages.page(
                "apps", title: "Apps that can sign in as you", values: page.values, status: HTTPResponse.Status(code: page.status))
            response.headers[.contentSecurityPolicy] = consentPolicy
            return response
        }
        open.get(RouterPath(HostedGrants.path)) { [hostedGrants] _, _ in appsPage(hostedGrants.signIn()) }
        open.post(RouterPath(HostedGrants.path)) { [hostedGrants] request, context in
            let form = try await HostedPageRoutes.form(request, context: context)
            return appsPage(try await hostedGrants.answer(form, crossSite: HostedPageRoutes.isCrossSite(request), ipAddress: context.clientIP))
        }

        let signedIn = open.group().add(middleware: SignedInUserMiddleware(authentication: authentication))
        signedIn.get("/oauth/userinfo") { _, context in
            let caller = try context.signedIn()
            return OAuthUserInfo(user: caller.user, session: caller.session)
        }
        let consent = signedIn.group().add(middleware: FirstPartySessionMiddleware())
        consent.get("/oauth/authorizations/:authorization_id") { request, context in
            let id = context.parameters.get("authorization_id") ?? ""
            switch try await authorizations.read(id, by: try context.signedIn().user, origin: request.headers[.origin]) {
            case .approved(let url): return try OAuthRedirectResponse(redirect_url: url).response(from: request, context: context)
            case .details(let details): return try details.response(from: request, context: context)
            }
        }
        consent.post("/oauth/authorizations/:authorization_id/consent") { request, context in
            let id = context.parameters.get("authorization_id") ?? ""
            let origin = request.headers[.origin]
            let user = try context.signedIn().user
            let body = try await request.decode(as: OAuthConsentBody.self, context: context)
            guard let action = body.action, action == "approve" || action == "deny" else { throw AuthError.consentActionInvalid }
            return OAuthRedirectResponse(redirect_url: try await authorizations.decide(id, approve: action == "approve", by: user, origin: origin))
        }

        // GoTrue's order: enabled, the rate limit, then whether clients may register themselves.
        let registrationAllowed = settings.allowDynamicRegistration
        open.group().add(middleware: RateLimitMiddleware { [limits] in try await limits.admitOAuthClientRegistration(from: $0) })
            .post("/oauth/clients/register") { request, context in
                guard registrationAllowed else { throw AuthError.dynamicRegistrationDisabled }
                let body = try await request.decode(as: OAuthClientBody.self, context: context)
                return try await clients.register(body, registration: .dynamic).response(from: request, context: context, status: .created)
            }

        let userGrants = router.group("/user/oauth/grants").add(middleware: SignedInUserMiddleware(authentication: authentication))
            .add(middleware: enabled).add(middleware: FirstPartySessionMiddleware())
        userGrants.get { _, context in
            try JSONBody.response(try await grants.list(for: try context.signedIn().user))
        }
        userGrants.delete { request, context in
            try await grants.revoke(
                request.uri.queryParameters.get("client_id"), for: try context.signedIn().user, ipAddress: context.clientIP)
            return Response(status: .noContent)
        }

        let admin = router.group("/admin/oauth/clients").add(middleware: AdministratorMiddleware(authentication: authentication))
            .add(middleware: enabled)
        admin.post { request, context in
            let body = try await request.decode(as: OAuthClientBody.self, context: context)
            return try await clients.register(body, registration: .manual).response(from: request, context: context, status: .created)
        }
        admin.get { _, _ in try await clients.list() }
        admin.get(":client_id") { _, context in OAuthClientResponse(try await clients.client(try context.oauthClientID())) }
        admin.put(":client_id") { request, context in
            let id = try context.oauthClientID()
            let body = try await request.decode(as: OAuthClientBody.self, context: context)
            return try await clients.update(id, with: body)
        }
        admin.delete(":client_id") { _, context in
            try await clients.delete(try context.oauthClientID())
            return Response(status: .noContent)
        }
        admin.post(":client_id/regenerate_secret") { _, context in
            try await clients.regenerateSecret(try context.oauthClientID())
        }
    }
}

extension AuthRequestContext {
    /// The client id in the path: 400 `validation_failed` "invalid client_id format" when it is
    /// not a UUID, as GoTrue.
    func oauthClientID() throws(AuthError) -> UUID {
        guard let text = parameters.get("client_id"), let id = UUID(uuidString: text) else { throw .oauthClientIDInvalid }
        return id
    }
}

extension OAuthServerRoutes {
    /// The token request's fields: a form body (RFC 6749 §4.1.3), or a JSON object of strings
    /// as GoTrue also takes; a field given in the query counts where the body lacks it.
    static func tokenFields(_ request: Request, context: AuthRequestContext) async throws -> [String: String] {
        var fields: [String: String]
        if request.headers[.contentType]?.lowercased().contains("application/json") == true {
            let buffer = try await request.body.collect(upTo: 16 << 10)
            guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(buffer.readableBytesView)) else {
                throw AuthError.oauth("invalid_request", "Invalid JSON body")
            }
            fields = object.compactMapValues { value in
                if case .string(let text) = value { return text }
                return nil
            }
        } else {
            fields = try await HostedPageRoutes.form(request, context: context)
        }
        for (name, value) in formQuery(request) where fields[name] == nil { fields[name] = value }
        return fields
    }

    /// The request's query as a form (`application/x-www-form-urlencoded`, as OAuth clients
    /// write it: `+` is a space, `%2B` a plus), first value of each name.
    static func formQuery(_ request: Request) -> [String: String] {
        FormEncoding.fields(request.uri.query ?? "")
    }
}
