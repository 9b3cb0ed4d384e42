import Foundation
import LatchkeyWire
import Logging
import NIOCore

/// What every ``AuthFeature`` is built from, made once per server by ``LatchkeyApplication``:
/// the shared parts of ``ServiceDependencies`` (reached by name: `dependencies.store`), the
/// configuration, bearer authentication, and the pieces more than one feature calls (email links,
/// phone codes, reauthentication, passkey ceremonies, provider sign-in).
///
/// A feature builds its own use cases from this in its `init`; what only one feature uses stays
/// in that feature. A piece another feature needs is added here, or as a computed property in
/// the feature folder that offers it (``hostedPages``).
struct FeatureDependencies: ServiceDependent {
    let shared: ServiceDependencies
    let configuration: ServerConfiguration
    /// Bearer tokens: users' access tokens and the administrator key.
    let authentication: BearerAuthentication
    /// The server's own URL, where `/verify` links point.
    let origin: ServerOrigin
    /// Signs access tokens; its public keys are what `GET /.well-known/jwks.json` publishes.
    let signer: TokenSigner
    let mailer: any Mailer
    let mailTemplates: MailTemplates
    let pageTemplates: PageTemplates
    /// Outgoing requests to providers (token exchange, userinfo, JWKS, captcha, SMS, Pwned Passwords).
    let http: any ProviderHTTP
    /// Where request, sign-in, refresh, rate-limit and mail metrics go; `nil` when they are off.
    let metrics: ServerMetrics?
    /// The recent answer times of the routes that send to an address or number only when it
    /// has an account (``ResponsePaddingMiddleware``).
    let responsePadding: ResponsePadding
    /// Makes the dispatcher of a configured hook (its URI decides: HTTP or a PostgreSQL function).
    let hookDispatcher: @Sendable (HookTarget) -> any HookDispatcher
    /// The SMS sender, when phone sign-in or phone factors are on.
    let sms: (any SMSSender)?
    /// The send SMS hook, when one is configured: it sends every SMS instead of the provider.
    let sendSMSHook: SendSMSHook?
    /// How links in emails are made and where they may send the browser.
    let linkSettings: EmailLinks.Settings
    /// `/recover`, `/resend` and every mailed link and code.
    let emailLinks: EmailLinks
    /// Codes sent by SMS; `nil` when phone sign-in is off.
    let phoneCodes: PhoneCodes?
    /// The nonce a password change may need (`GET /reauthenticate`).
    let reauthentication: Reauthentication
    /// WebAuthn challenges and the relying party, for passkeys and WebAuthn factors.
    let ceremonies: PasskeyCeremonies
    /// The OpenID discovery documents and key sets of the providers, cached.
    let directory: OIDCProviderDirectory
    /// Verifies providers' ID tokens.
    let idTokens: IDTokenVerifier
    /// The providers an administrator adds at run time.
    let customProviders: CustomProviders
    /// Sign-in with external providers, linking and unlinking identities.
    let providers: ProviderSignIn
    /// Apple refresh tokens: kept at sign-in to revoke when the account is deleted.
    let appleTokens: AppleTokens
    /// CAPTCHA protection, when on.
    let captcha: CaptchaVerifier?

    /// - Parameters:
    ///   - origin: the server's own URL, where `/verify` links point; the site URL (where users
    ///     land after following a link) unless the configuration names one.
    ///   - providerHTTP: the provider requests (`nil`: over the network, guarded by
    ///     ``ProviderAddressPolicy``).
    ///   - smsSender: the SMS sender (`nil`: the one the phone settings name).
    init(
        configuration: ServerConfiguration, store: any AuthStore, clock: any ServerClock, hasher: PasswordHasher, signer: TokenSigner,
        tokens: OpaqueTokens, mailer: any Mailer, rateLimitCounter: any RateLimitCounter, logger: Logger, origin: ServerOrigin,
        mailTemplates: MailTemplates = .defaults, pageTemplates: PageTemplates = .defaults, metrics: ServerMetrics? = nil,
        providerHTTP: (any ProviderHTTP)? = nil, smsSender: (any SMSSender)? = nil
    ) {
        self.configuration = configuration
        self.origin = origin
        self.signer = signer
        self.mailer = mailer
        self.mailTemplates = mailTemplates
        self.pageTemplates = pageTemplates
        self.metrics = metrics
        responsePadding = ResponsePadding(floor: .seconds(configuration.responsePaddingFloor))
        let limits = RateLimits(counter: rateLimitCounter, clock: clock, limits: configuration.rateLimits)
        let http =
            providerHTTP
            ?? GuardedProviderHTTP(
                policy: ProviderAddressPolicy(allowsLoopback: configuration.external.allowLoopbackProviders),
                timeout: TimeAmount(seconds: configuration.external.requestTimeout))
        self.http = http
        captcha = CaptchaVerifier(configuration, http: http, logger: logger)
        var passwords = PasswordPolicy(
            minimumLength: configuration.minimumPasswordLength, requiredCharacters: configuration.passwordRequiredCharacters, hasher: hasher)
        if configuration.passwordLeakCheck {
            let rangeURL =
                configuration.external.allowLoopbackProviders
                ? configuration.pwnedPasswordsRangeURL ?? PwnedPasswords.rangeURL : PwnedPasswords.rangeURL
            passwords.pwned = (PwnedPasswords(http: http, rangeURL: rangeURL, logger: logger), configuration.passwordLeakCheckFailClosed)
        }
        // A hook's URI decides how it is called (the configuration was checked at start: a
        // PostgreSQL function only with the PostgreSQL store).
        let hookDispatcher: @Sendable (HookTarget) -> any HookDispatcher = { [store] target in
            switch target {
            case .http(let endpoint):
                return HTTPHookDispatcher(endpoint: endpoint, clock: clock, logger: logger, timeout: .seconds(configuration.hooks.httpTimeout))
            case .postgresFunction(let function):
                return PostgresFunctionDispatcher(
                    function: function, caller: store as? any HookFunctionCaller, clock: clock, logger: logger,
                    timeout: .seconds(configuration.hooks.functionTimeout))
            case .missingURI: return MissingURIHookDispatcher(clock: clock)
            }
        }
        self.hookDispatcher = hookDispatcher
        var sessions = SessionIssuer(
            store: store, clock: clock, signer: signer, accessTokenTTL: configuration.accessTokenTTL,
            sessionTimebox: configuration.sessionTimebox, logger: logger)
        // The configuration was validated at start: an unusable endpoint never gets here (the
        // same for every hook below).
        if let endpoint = try? configuration.hooks.customAccessTokenEndpoint() {
            sessions.accessTokenHook = CustomAccessTokenHook(dispatcher: hookDispatcher(endpoint))
        }
        let siteURL = configuration.siteURL?.trimmingTrailingSlash()
        let linkSettings = EmailLinks.Settings(
            confirmationTokenTTL: configuration.confirmationTokenTTL, recoveryTokenTTL: configuration.recoveryTokenTTL,
            codeTTL: configuration.emailCodeTTL,
            redirects: RedirectPolicy(siteURL: siteURL, origin: origin, additionalURLs: configuration.additionalRedirectURLs),
            siteIsServer: siteURL == nil || siteURL == origin.url, secureEmailChange: configuration.secureEmailChange)
        self.linkSettings = linkSettings
        let sendEmailHook = (try? configuration.hooks.sendEmailTarget())?.map {
            SendEmailHook(dispatcher: hookDispatcher($0), origin: origin)
        }
        var emailLinks = EmailLinks(
            store: store, clock: clock, mailer: mailer, limits: limits, tokens: tokens, settings: linkSettings, templates: mailTemplates,
            logger: logger)
        emailLinks.hook = sendEmailHook
        self.emailLinks = emailLinks
        var notices = AccountNotices(
            settings: configuration.notifications, mailer: mailer, templates: mailTemplates, siteURL: linkSettings.redirects.siteURL,
            logger: logger)
        notices.hook = sendEmailHook
        let shared = ServiceDependencies(
            store: store, clock: clock, limits: limits, passwords: passwords, sessions: sessions, tokens: tokens, notices: notices,
            logger: logger,
            beforeUserCreated: (try? configuration.hooks.beforeUserCreatedEndpoint())?.map {
                BeforeUserCreatedHook(dispatcher: hookDispatcher($0))
            },
            afterUserCreated: (try? configuration.hooks.afterUserCreatedTarget())?.map {
                AfterUserCreatedHook(dispatcher: hookDispatcher($0))
            })
        self.shared = shared
        authentication = BearerAuthentication(signer: signer, store: store, clock: clock, adminRoles: configuration.jwtAdminRoles)
        let sms =
            configuration.phone.enabled || configuration.mfa.phoneVerifyEnabled
            ? smsSender ?? configuration.phone.sender(http: http, allowsLoopback: configuration.external.allowLoopbackProviders) : nil
        self.sms = sms
        let sendSMSHook = (try? configuration.hooks.sendSMSTarget())?.map { SendSMSHook(dispatcher: hookDispatcher($0)) }
        self.sendSMSHook = sendSMSHook
        let phoneCodes =
            configuration.phone.enabled
            ? sms.map {
                var codes = PhoneCodes(shared: shared, sender: $0, settings: configuration.phone)
                codes.hook = sendSMSHook
                return codes
            } : nil
        self.phoneCodes = phoneCodes
        var reauthentication = Reauthentication(shared: shared, emailLinks: emailLinks, required: configuration.securePasswordChange)
        reauthentication.phoneCodes = phoneCodes
        self.reauthentication = reauthentication
        ceremonies = PasskeyCeremonies(store: store, clock: clock, settings: configuration.passkeys, logger: logger)
        let directory = OIDCProviderDirectory(http: http, clock: clock, logger: logger)
        self.directory = directory
        let idTokens = IDTokenVerifier(directory: directory, clock: clock, logger: logger)
        self.idTokens = idTokens
        let customProviders = CustomProviders(
            shared: shared, settings: configuration.external, sealer: tokens.providerSecrets, directory: directory)
        self.customProviders = customProviders
        appleTokens = AppleTokens(
            settings: configuration.external, http: http, clock: clock, store: store, sealer: tokens.providerRefreshTokens, logger: logger)
        providers = ProviderSignIn(
            shared: shared, settings: configuration.external, verifier: idTokens, custom: customProviders,
            signupDisabled: configuration.disableSignup, autoconfirm: configuration.autoconfirm)
    }
}

extension FeatureDependencies {
    /// The middleware that pads the answers of `route` (``ResponsePadding``), timed on the
    /// server's clock.
    func padding(_ route: String) -> ResponsePaddingMiddleware<AuthRequestContext> {
        ResponsePaddingMiddleware(padding: responsePadding, route: route, clock: clock)
    }
}

extension TimeAmount {
    /// `seconds` (a setting's fractional seconds) as a NIO time amount.
    init(seconds: Double) {
        self = .nanoseconds(Int64((seconds * 1_000_000_000).rounded()))
    }
}
