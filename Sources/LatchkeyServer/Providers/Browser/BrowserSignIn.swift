import Foundation
import HTTPTypes
import LatchkeyWire
import Logging

/// Signing in (or linking an identity) at a provider in a browser: `GET /authorize` sends the
/// browser to the provider, `/callback` takes it back, and the browser lands on the app's
/// `redirect_to` with `?code=` (PKCE apps) or the session in the fragment, as GoTrue does.
///
/// The `state` the provider hands back is the id of a stored ``ProviderFlow``: unguessable,
/// spent by its first callback, good for ten minutes, and bound to the browser that started the
/// flow by a cookie (only its hash is stored), so a callback URL from someone else's sign-in
/// cannot sign this browser into their account. Where the flow lands is checked against the
/// redirect allow list when it starts. A link flow whose URL was handed to an app instead
/// (`skip_http_redirect=true`) is bound to no browser, so its callback links nothing before the
/// person in the browser confirms (``LinkConfirmation``).
struct BrowserSignIn: ServiceDependent {
    /// How long a person may take at the provider.
    static let lifetime: TimeInterval = 600
    /// The cookie binding flows to the browser that started them.
    static let bindingCookie = "latchkey-provider-flow"

    let shared: ServiceDependencies
    let providers: BrowserProviders
    let signIn: ProviderSignIn
    let redirects: RedirectPolicy
    /// Keeps the refresh token Apple's code exchange gives, to revoke it at account deletion.
    let appleTokens: AppleTokens

    /// Where `GET /authorize` (or `/user/identities/authorize`) sends the browser.
    struct Start: Sendable {
        var url: URL
        /// The binding cookie's value to set (the browser's, or a new one).
        var binding: String
    }

    /// Starts a flow: stores it and answers the provider's authorization URL.
    /// - Parameters:
    ///   - parameters: the request's other query parameters, forwarded to the provider as
    ///     GoTrue does, minus those the server controls.
    ///   - binding: the binding cookie the browser already has, if any.
    ///   - bindsBrowser: false when the URL is handed to an app (`skip_http_redirect=true`)
    ///     rather than to the browser that will open it.
    func start(
        provider name: String?, redirectTo: String?, scopes: String?, codeChallenge: String?, codeChallengeMethod: String?,
        parameters: [(String, String)], linkingUserID: UUID?, binding: String?, bindsBrowser: Bool
    ) async throws -> Start {
        let provider = try await providers.provider(named: name ?? "")
        let pkce = try PKCEChallenge(challenge: codeChallenge, method: codeChallengeMethod)
        let now = clock.now()
        let binding = binding.flatMap { $0.utf8.count == 43 ? $0 : nil } ?? OpaqueTokens.random()
        let nonce = OpaqueTokens.random()
        let providerVerifier = provider.usesPKCE ? OpaqueTokens.random() : nil
        let flow = ProviderFlow(
            provider: provider.name, redirectTo: redirects.resolve(redirectTo), codeChallenge: pkce?.challenge, codeChallengeMethod: pkce?.method,
            linkingUserID: linkingUserID, providerVerifier: providerVerifier, nonce: nonce,
            browserBindingHash: bindsBrowser ? OpaqueTokens.hash(binding) : "", createdAt: now)
        try await store.saveProviderFlow(flow, deletingStartedBefore: now.addingTimeInterval(-Self.lifetime))
        let reserved: Set<String> = [
            "client_id", "redirect_uri", "response_type", "scope", "state", "nonce", "code_challenge", "code_challenge_method",
            "response_mode", "provider", "scopes", "redirect_to", "skip_http_redirect", "access_type", "prompt_none",
        ]
        let forwarded = parameters.filter { !reserved.contains($0.0.lowercased()) }.prefix(20).map { $0 }
        let url = try await provider.authorizationURL(
            ProviderAuthorization(
                state: flow.id.lowercasedString, nonce: IDTokenVerifier.hashedNonce(nonce),
                codeChallenge: providerVerifier.map { PKCEChallenge.s256($0) },
                scopes: (scopes ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init).prefix(20).map { $0 },
                redirectURI: providers.redirectURI(for: provider.name), parameters: forwarded))
        logger.info("redirecting to a provider", metadata: ["provider": "\(provider.name)"])
        return Start(url: url, binding: binding)
    }

    /// What the provider's callback answers.
    enum CallbackAnswer: Sendable, Equatable {
        /// Where the browser goes next.
        case redirect(String)
        /// A page that asks the person in this browser to confirm linking an identity.
        case confirmLink(LinkConfirmation)
    }

    /// The provider's callback (`GET` or `POST /callback`): where the browser goes next, or, for
    /// a link flow bound to no browser, the confirmation to ask for. Never throws for what the
    /// request says: every failure is a redirect carrying GoTrue's `error`, `error_code` and
    /// `error_description`, to the flow's `redirect_to` once the flow is known and to the site
    /// URL before.
    func callback(fields: [String: String], binding: String?, ipAddress: String) async -> CallbackAnswer {
        guard let state = fields["state"], !state.isEmpty else {
            return .redirect(
                ErrorRedirect.url(for: AuthError(.badRequest, "bad_oauth_callback", "OAuth state parameter missing"), to: redirects.siteURL))
        }
        guard let id = UUID(uuidString: state) else {
            return .redirect(
                ErrorRedirect.url(for: AuthError(.badRequest, "bad_oauth_state", "OAuth state parameter is invalid"), to: redirects.siteURL))
        }
        let now = clock.now()
        let flow: ProviderFlow
        switch await spend(id, binding: binding, now: now) {
        case .success(let spent): flow = spent
        case .failure(let error): return .redirect(ErrorRedirect.url(for: error, to: redirects.siteURL))
        }
        do {
            return try await finish(flow, fields: fields, ipAddress: ipAddress, now: now)
        } catch {
            return .redirect(failure(error, of: flow))
        }
    }

    /// Spends the stored flow `id` once: it must be fresh and, when bound to a browser, be
    /// presented by that browser's cookie `binding`.
    func spend(_ id: UUID, binding: String?, now: Date) async -> Result<ProviderFlow, AuthError> {
        let flow: ProviderFlow?
        do {
            flow = try await store.consumeProviderFlow(id: id)
        } catch {
            logger.error("provider flow could not be read", metadata: ["error": "\(type(of: error))"])
            return .failure(AuthError(.internalServerError, "unexpected_failure", "Error loading flow state"))
        }
        guard let flow, now.timeIntervalSince(flow.createdAt) <= Self.lifetime else {
            return .failure(AuthError(.badRequest, "bad_oauth_state", "OAuth state not found or expired"))
        }
        if !flow.browserBindingHash.isEmpty {
            guard let binding, constantTimeEquals(OpaqueTokens.hash(binding), flow.browserBindingHash) else {
                logger.notice("provider callback from a browser that did not start the flow", metadata: ["provider": "\(flow.provider)"])
                return .failure(AuthError(.badRequest, "bad_oauth_state", "OAuth state was not issued to this browser"))
            }
        }
        return .success(flow)
    }

    /// Where the browser goes when finishing `flow` failed with `error`.
    func failure(_ error: any Error, of flow: ProviderFlow) -> String {
        guard let answer = AuthError(answering: error) else {
            logger.error("provider sign-in failed", metadata: ["provider": "\(flow.provider)", "error": "\(type(of: error))"])
            return ErrorRedirect.url(for: AuthError(.internalServerError, "unexpected_failure", "Unexpected failure"), to: flow.redirectTo)
        }
        return ErrorRedirect.url(for: answer, to: flow.redirectTo)
    }

    private func finish(_ flow: ProviderFlow, fields: [String: String], ipAddress: String, now: Date) async throws -> CallbackAnswer {
        if let error = fields["error"], !error.isEmpty {
            throw AuthError.oauth(String(error.prefix(64)), String((fields["error_description"] ?? "").prefix(300)))
        }
        guard let code = fields["code"], !code.isEmpty else {
            throw AuthError(.badRequest, "bad_oauth_callback", "OAuth callback with missing authorization code missing")
        }
        let provider = try await providers.provider(named: flow.provider)
        let result = try await provider.finish(
            code: code, redirectURI: providers.redirectURI(for: provider.name), nonce: flow.nonce, verifier: flow.providerVerifier, fields: fields)
        if result.data.email == nil, !provider.emailOptional {
            throw AuthError(.internalServerError, "unexpected_failure", "Error getting user email from external provider")
        }
        if flow.linkingUserID != nil, flow.browserBindingHash.isEmpty {
            return .confirmLink(try await askToLink(flow, result: result, now: now))
        }
        return .redirect(try await complete(flow, provider: provider, result: result, ipAddress: ipAddress, now: now))
    }

    /// Signs the person in (or links the identity) with what the provider answered, and says
    /// where the browser goes: the app with `?code=` or the session in the fragment.
    func complete(
        _ flow: ProviderFlow, provider: any BrowserProvider, result: ProviderSignInResult, ipAddress: String, now: Date
    ) async throws
        -> String
    {
        let user =
            if let target = flow.linkingUserID {
                try await signIn.linkedAccount(
                    provider: provider.name, result.data, emailOptional: provider.emailOptional, to: target, ipAddress: ipAddress)
            } else {
                try await signIn.account(provider: provider.name, result.data, emailOptional: provider.emailOptional, ipAddress: ipAddress)
            }
        if provider.name == AppleTokens.provider, let refreshToken = result.refreshToken, !refreshToken.isEmpty,
            let clientID = providers.settings.apple.clientIDs.first
        {
            await appleTokens.keep(refreshToken: refreshToken, clientID: clientID, userID: user.id, providerID: result.data.subject)
        }
        if let challenge = flow.codeChallenge, let method = flow.codeChallengeMethod {
            let code = try await store.issueAuthorizationCode(
                userID: user.id, authenticationMethod: "oauth", codeChallenge: challenge, codeChallengeMethod: method, at: now)
            return ErrorRedirect.adding(query: [URLQueryItem(name: "code", value: code)], to: flow.redirectTo)
        }
        if user.isBanned(at: now) { throw AuthError.userBanned }
        let session = try await sessions.start(for: user, method: "oauth", ipAddress: ipAddress, provider: provider.name)
        return ErrorRedirect.replacingFragment(
            of: flow.redirectTo, withSession: session, providerToken: result.accessToken, providerRefreshToken: result.refreshToken)
    }
}
