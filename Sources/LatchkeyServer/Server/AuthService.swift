import Foundation
import LatchkeyWire
import Logging
import NIOCore

/// The server's use cases, wired to one store, clock, signer, hasher, mailer and rate-limit counter.
///
/// Routes call these and nothing else; each use case keeps its dependencies to itself.
struct AuthService: Sendable {
    /// Bearer tokens: users' access tokens and the administrator key.
    /// What every feature is built on (store, clock, rate limits, sessions, …).
    let shared: ServiceDependencies
    let authentication: BearerAuthentication
    /// `POST /signup`.
    let signUp: SignUp
    /// Sign-in with external providers, linking and unlinking identities.
    let providers: ProviderSignIn
    /// `/admin/custom-providers…`, and the providers it adds.
    let customProviders: CustomProviders
    /// `GET /authorize`, `/callback`, `GET /user/identities/authorize`.
    let browserSignIn: BrowserSignIn
    /// `POST /token`: every grant type in ``TokenGrants/all``.
    let grants: TokenGrants
    /// `POST /logout`.
    let logout: Logout
    /// `GET /user`.
    let currentUser: CurrentUser
    /// `PUT /user`.
    let userUpdate: UserUpdate
    /// `POST /factors`.
    let factorEnrollment: FactorEnrollment
    /// `POST /factors/{id}/challenge`.
    let factorChallenges: FactorChallenges
    /// `POST /factors/{id}/verify`.
    let factorVerification: FactorVerification
    /// `DELETE /factors/{id}`.
    let factorUnenrollment: FactorUnenrollment
    /// `/admin/users/{id}/factors…`.
    let adminFactors: AdminFactors
    /// Whether the `/passkeys` routes answer.
    let passkeysEnabled: Bool
    /// Whether email addresses sign up and sign in (``ServerConfiguration/emailEnabled``).
    let emailEnabled: Bool
    /// Whether the relying party can run passkey ceremonies (see ``ServerConfiguration/warnings()``).
    let webAuthnUsable: Bool
    /// `POST /passkeys/registration/…`.
    let passkeyRegistration: PasskeyRegistration
    /// `POST /passkeys/authentication/…`.
    let passkeySignIn: PasskeySignIn
    /// `GET`, `PATCH`, `DELETE /passkeys…` and `/admin/users/{id}/passkeys…`.
    let passkeyManagement: PasskeyManagement
    /// The app IDs `/.well-known/apple-app-site-association` lists as `webcredentials`.
    let appleAppIDs: [String]
    /// `GET/PUT /profiles/{id}`.
    let profiles: Profiles
    /// `/recover` and `/resend`.
    let emailLinks: EmailLinks
    /// `POST/GET /verify`.
    let verification: EmailVerification
    /// `POST /otp` and `POST /magiclink`.
    let emailSignIn: EmailSignIn
    /// The recent answer times of the routes that send to an address or number only when it
    /// has an account (``ResponsePaddingMiddleware``).
    let responsePadding: ResponsePadding
    /// The clock the padded answers are timed and held back on.
    let paddingClock: any ServerClock
    /// `POST /otp` with a phone number; `nil` when phone sign-in is off.
    let phoneSignIn: PhoneSignIn?
    /// `POST /verify` types `sms` and `phone_change`; `nil` when phone sign-in is off.
    let phoneVerification: PhoneVerification?
    /// `POST /invite` and `POST /admin/generate_link`.
    let invitations: Invitations
    /// `GET /`, `/welcome/…` and where `GET /verify` lands when the site URL is the server itself.
    let hostedPages: HostedPages
    /// Passkeys on the hosted pages: `/welcome/sign-in` and `/welcome/passkey/…`.
    let hostedPasskeys: HostedPasskeys
    /// `GET /reauthenticate`, and the nonce a password change may need.
    let reauthentication: Reauthentication
    /// `DELETE /user`; `nil` unless `--allow-self-deletion`.
    let accountDeletion: AccountDeletion?
    /// `/admin/users…`.
    let adminUsers: AdminUsers
    /// `GET /admin/audit`.
    let auditLog: AuditLog
    /// What `GET /settings` answers.
    let settings: SettingsResponse
    /// CAPTCHA protection, when on.
    let captcha: CaptchaVerifier?
    /// The public keys `GET /.well-known/jwks.json` publishes.
    let publicKeys: [JSONWebKey]

    /// - Parameters:
    ///   - origin: the server's own URL, where `/verify` links point; the site URL (where users
    ///     land after following a link) unless the configuration names one.
    init(
        configuration: ServerConfiguration, store: any AuthStore, clock: any ServerClock, hasher: PasswordHasher,
        signer: TokenSigner, tokens: OpaqueTokens, mailer: any Mailer, rateLimitCounter: any RateLimitCounter, logger: Logger,
        origin: ServerOrigin, mailTemplates: MailTemplates = .defaults, providerHTTP: (any ProviderHTTP)? = nil,
        smsSender: (any SMSSender)? = nil
    ) {
        let siteURL = configuration.siteURL?.trimmingTrailingSlash()
        paddingClock = clock
        responsePadding = ResponsePadding(floor: .milliseconds(Int64((configuration.responsePaddingFloor * 1000).rounded())))
        let limits = RateLimits(counter: rateLimitCounter, clock: clock, limits: configuration.rateLimits)
        let http =
            providerHTTP
            ?? GuardedProviderHTTP(
                policy: ProviderAddressPolicy(allowsLoopback: configuration.external.allowLoopbackProviders),
                timeout: .milliseconds(Int64(configuration.external.requestTimeout * 1000)))
        var passwords = PasswordPolicy(
            minimumLength: configuration.minimumPasswordLength, requiredCharacters: configuration.passwordRequiredCharacters, hasher: hasher)
        if configuration.captcha.enabled, let secret = configuration.captcha.secret,
            let provider = CaptchaVerifier.Provider(rawValue: configuration.captcha.provider)
        {
            let override = configuration.external.allowLoopbackProviders ? configuration.captcha.siteverifyURLOverride : nil
            captcha = CaptchaVerifier(
                http: http, secret: secret.trimmingCharacters(in: .whitespaces), url: override ?? provider.siteverifyURL, logger: logger)
        } else {
            captcha = nil
        }
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
                return HTTPHookDispatcher(
                    endpoint: endpoint, clock: clock, logger: logger, timeout: .milliseconds(Int64(configuration.hooks.httpTimeout * 1000)))
            case .postgresFunction(let function):
                return PostgresFunctionDispatcher(
                    function: function, caller: store as? any HookFunctionCaller, clock: clock, logger: logger,
                    timeout: .milliseconds(Int64(configuration.hooks.functionTimeout * 1000)))
            case .missingURI: return MissingURIHookDispatcher(clock: clock)
            }
        }
        var sessions = SessionIssuer(
            store: store, clock: clock, signer: signer, accessTokenTTL: configuration.accessTokenTTL,
            sessionTimebox: configuration.sessionTimebox, logger: logger)
        // The configuration was validated at start: an unusable endpoint never gets here.
        if let endpoint = try? configuration.hooks.customAccessTokenEndpoint() {
            sessions.accessTokenHook = CustomAccessTokenHook(dispatcher: hookDispatcher(endpoint))
        }
        let linkSettings = EmailLinks.Settings(
            confirmationTokenTTL: configuration.confirmationTokenTTL, recoveryTokenTTL: configuration.recoveryTokenTTL,
            codeTTL: configuration.emailCodeTTL,
            redirects: RedirectPolicy(siteURL: siteURL, origin: origin, additionalURLs: configuration.additionalRedirectURLs),
            siteIsServer: siteURL == nil || siteURL == origin.url, secureEmailChange: configuration.secureEmailChange)
        // The configuration was validated at start: an unusable endpoint never gets here.
        let sendEmailHook = (try? configuration.hooks.sendEmailTarget())?.map {
            SendEmailHook(dispatcher: hookDispatcher($0), origin: origin)
        }
        var emailLinks = EmailLinks(
            store: store, clock: clock, mailer: mailer, limits: limits, tokens: tokens, settings: linkSettings, templates: mailTemplates,
            logger: logger)
        emailLinks.hook = sendEmailHook
        var notices = AccountNotices(
            settings: configuration.notifications, mailer: mailer, templates: mailTemplates, siteURL: linkSettings.redirects.siteURL,
            logger: logger)
        notices.hook = sendEmailHook
        // The configuration was validated at start: an unusable endpoint never gets here.
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
        var reauthentication = Reauthentication(shared: shared, emailLinks: emailLinks, required: configuration.securePasswordChange)
        authentication = BearerAuthentication(signer: signer, store: store, clock: clock, adminRoles: configuration.jwtAdminRoles)
        let sms =
            configuration.phone.enabled || configuration.mfa.phoneVerifyEnabled
            ? smsSender ?? configuration.phone.sender(http: http, allowsLoopback: configuration.external.allowLoopbackProviders) : nil
        let sendSMSHook = (try? configuration.hooks.sendSMSTarget())?.map { SendSMSHook(dispatcher: hookDispatcher($0)) }
        let phoneCodes =
            configuration.phone.enabled
            ? sms.map {
                var codes = PhoneCodes(shared: shared, sender: $0, settings: configuration.phone)
                codes.hook = sendSMSHook
                return codes
            } : nil
        reauthentication.phoneCodes = phoneCodes
        phoneSignIn = phoneCodes.map { PhoneSignIn(shared: shared, codes: $0, signUpDisabled: configuration.disableSignup) }
        phoneVerification = phoneCodes.map { PhoneVerification(shared: shared, codes: $0) }
        signUp = SignUp(
            shared: shared, emailLinks: emailLinks,
            settings: SignUp.Settings(
                disabled: configuration.disableSignup, autoconfirm: configuration.autoconfirm, anonymousUsers: configuration.enableAnonymousUsers,
                emailEnabled: configuration.emailEnabled),
            phone: phoneCodes.map { PhoneSignUp(shared: shared, codes: $0) })
        let directory = OIDCProviderDirectory(http: http, clock: clock, logger: logger)
        let idTokens = IDTokenVerifier(directory: directory, clock: clock, logger: logger)
        let customProviders = CustomProviders(
            shared: shared, settings: configuration.external, sealer: tokens.providerSecrets, directory: directory)
        self.customProviders = customProviders
        let appleTokens = AppleTokens(
            settings: configuration.external, http: http, clock: clock, store: store, sealer: tokens.providerRefreshTokens, logger: logger)
        let providers = ProviderSignIn(
            shared: shared, settings: configuration.external, verifier: idTokens, custom: customProviders,
            signupDisabled: configuration.disableSignup, autoconfirm: configuration.autoconfirm)
        self.providers = providers
        browserSignIn = BrowserSignIn(
            shared: shared,
            providers: BrowserProviders(
                settings: configuration.external, directory: directory, verifier: idTokens, http: http, clock: clock, custom: customProviders,
                origin: origin),
            signIn: providers, redirects: linkSettings.redirects, appleTokens: appleTokens)
        grants = TokenGrants(
            GrantDependencies(
                shared: shared, configuration: configuration, authentication: authentication, providers: providers, appleTokens: appleTokens,
                passwordAttemptHook: (try? configuration.hooks.passwordVerificationAttemptEndpoint())?.map {
                    VerificationAttemptHook(dispatcher: hookDispatcher($0), kind: .password)
                }))
        logout = Logout(store: store, clock: clock)
        userUpdate = UserUpdate(
            shared: shared, emailLinks: emailLinks, reauthentication: reauthentication, autoconfirm: configuration.autoconfirm,
            requireCurrentPassword: configuration.requireCurrentPassword, phoneCodes: phoneCodes)
        profiles = Profiles(store: store, clock: clock)
        currentUser = CurrentUser(store: store)
        let factorRules = FactorRules(configuration)
        let factorSecrets = tokens.factorSecrets
        let issuerURL = siteURL
        factorEnrollment = FactorEnrollment(
            store: store, clock: clock, rules: factorRules, secrets: factorSecrets,
            defaultIssuer: { FactorRules.issuer(siteURL: issuerURL ?? origin.url) })
        let ceremonies = PasskeyCeremonies(store: store, clock: clock, settings: configuration.passkeys, logger: logger)
        let phoneFactorMessages =
            configuration.mfa.phoneVerifyEnabled
            ? sms.map {
                PhoneFactorMessages(
                    sender: $0, limits: limits, tokens: tokens, codeLength: configuration.mfa.phoneCodeLength,
                    template: configuration.mfa.phoneTemplate,
                    logger: logger, hook: sendSMSHook)
            } : nil
        factorChallenges = FactorChallenges(shared: shared, rules: factorRules, ceremonies: ceremonies, phone: phoneFactorMessages)
        factorVerification = FactorVerification(
            shared: shared, rules: factorRules, secrets: factorSecrets, relyingParty: ceremonies.relyingParty, phone: phoneFactorMessages,
            attemptHook: (try? configuration.hooks.mfaVerificationAttemptEndpoint())?.map {
                VerificationAttemptHook(dispatcher: hookDispatcher($0), kind: .mfa)
            })
        factorUnenrollment = FactorUnenrollment(store: store, clock: clock, notices: notices)
        adminFactors = AdminFactors(store: store, clock: clock)
        passkeysEnabled = configuration.passkeys.enabled
        emailEnabled = configuration.emailEnabled
        webAuthnUsable = configuration.webAuthnUsable
        passkeyRegistration = PasskeyRegistration(ceremonies: ceremonies)
        passkeySignIn = PasskeySignIn(ceremonies: ceremonies, limits: limits, sessions: sessions)
        passkeyManagement = PasskeyManagement(ceremonies: ceremonies)
        appleAppIDs = configuration.passkeys.appleAppIDs
        self.emailLinks = emailLinks
        self.reauthentication = reauthentication
        accountDeletion =
            configuration.allowSelfDeletion
            ? AccountDeletion(
                shared: shared, reauthentication: reauthentication, mailer: mailer, siteURL: linkSettings.redirects.siteURL,
                appleTokens: appleTokens) : nil
        verification = EmailVerification(shared: shared, settings: linkSettings)
        hostedPages = HostedPages(
            shared: shared, verification: verification, emailLinks: emailLinks, settings: linkSettings,
            minimumPasswordLength: configuration.minimumPasswordLength)
        hostedPasskeys = HostedPasskeys(
            pages: hostedPages, registration: passkeyRegistration, signIn: passkeySignIn, store: store, clock: clock,
            settings: configuration.passkeys, redirects: linkSettings.redirects, captchaEnabled: configuration.captcha.enabled)
        emailSignIn = EmailSignIn(
            shared: shared, emailLinks: emailLinks, signUpDisabled: configuration.disableSignup, autoconfirm: configuration.autoconfirm)
        invitations = Invitations(shared: shared, emailLinks: emailLinks)
        adminUsers = AdminUsers(store: store, clock: clock, passwords: passwords, adminRoles: configuration.jwtAdminRoles, logger: logger)
        auditLog = AuditLog(store: store)
        settings = SettingsResponse(configuration)
        publicKeys = signer.publicKeys
    }
}

extension AuthService {
    /// The middleware that pads the answers of `route` (``ResponsePadding``), timed on the
    /// server's clock.
    func padding(_ route: String) -> ResponsePaddingMiddleware<AuthRequestContext> {
        ResponsePaddingMiddleware(padding: responsePadding, route: route, clock: paddingClock)
    }
}
