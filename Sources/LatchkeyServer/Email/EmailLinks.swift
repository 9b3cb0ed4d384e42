import Foundation
import LatchkeyWire
import Logging

/// Emails that carry a one-time token — sign-up confirmation, invitation, recovery, magic link,
/// email change, reauthentication — and sending them again.
///
/// Every such email carries a link and a six-digit code; both redeem the same token, once (see
/// ``EmailVerification``). A request with a PKCE challenge also stores a ``FlowState``, and its
/// link then redirects with `?code=` instead of a session.
struct EmailLinks: Sendable {
    /// How long links and codes stay valid, and where they point.
    struct Settings: Sendable {
        var confirmationTokenTTL: TimeInterval
        var recoveryTokenTTL: TimeInterval
        /// How long an emailed code (and a reauthentication nonce) stays valid.
        var codeTTL: TimeInterval
        /// Where users land after following a link.
        var redirects: RedirectPolicy
        /// Where `/verify` links point: the server itself.
        var externalURL: String { redirects.origin.url }
        /// Whether the site URL is the server itself (no `--site-url`): links that land there
        /// show the server's own pages (``HostedPages``) instead of a URL fragment.
        var siteIsServer: Bool = false
        /// Whether an email change also needs the current address to confirm (GoTrue's secure
        /// email change): a mail to each address, and the change only after both.
        var secureEmailChange: Bool = true
    }

    /// A token issued for an email: what the email (or `POST /admin/generate_link`) shows.
    struct Issued: Sendable {
        /// The `/verify` link; `nil` for reauthentication, which is a code only.
        var link: String?
        var code: String
        /// The link's token: what `POST /verify` takes as `token_hash`.
        var linkToken: String
        /// Where the link lands after verifying.
        var redirectTo: String
    }

    private let store: any AuthStore
    private let clock: any ServerClock
    private let mailer: any Mailer
    private let limits: RateLimits
    private let tokens: OpaqueTokens
    private let templates: MailTemplates
    let settings: Settings
    private let logger: Logger
    /// The send email hook, when on: every email goes to it instead of ``mailer``.
    var hook: SendEmailHook? = nil

    init(
        store: any AuthStore, clock: any ServerClock, mailer: any Mailer, limits: RateLimits, tokens: OpaqueTokens, settings: Settings,
        templates: MailTemplates = .defaults, logger: Logger
    ) {
        self.store = store
        self.clock = clock
        self.mailer = mailer
        self.limits = limits
        self.tokens = tokens
        self.settings = settings
        self.templates = templates
        self.logger = logger
    }

    // MARK: Issuing and sending

    /// A token about to be issued: the rows to store, and what the email will carry.
    struct Pending: Sendable {
        var purpose: EmailPurpose
        var address: String
        var token: OneTimeToken
        var flow: FlowState?
        /// The user as saved with the token (`confirmation_sent_at` and the like).
        var user: UserRecord
        var audit: AuditEntry
        var issued: Issued
    }

    /// Creates a token of `purpose` for `user`, stores its hashes (replacing the user's previous
    /// one of the same kind), records when it was sent, and stores the PKCE flow if there is
    /// one. Mails nothing.
    ///
    /// - Parameter audit: the entry to record; by default the purpose's own.
    func issue(
        _ purpose: EmailPurpose, for user: UserRecord, address: String, redirectTo: String?, pkce: PKCEChallenge?, ipAddress: String,
        audit: AuditEntry? = nil
    ) async throws -> Issued {
        let pending = prepare(purpose, for: user, address: address, redirectTo: redirectTo, pkce: pkce, ipAddress: ipAddress, audit: audit)
        if let flow = pending.flow { try await store.saveFlowState(flow) }
        try await store.saveOneTimeToken(pending.token, updatingUser: pending.user, audit: pending.audit)
        return pending.issued
    }

    /// A token of `purpose` for `user`, not yet stored: a new account stores it with its row
    /// (``AuthStore/insertUser(_:audit:start:)``), then mails it with ``deliver(_:)``.
    ///
    /// - Parameter issuedAt: when the token is issued; by default now. A sign-up's confirmation
    ///   is issued at the account's creation time: that is how a confirmation tells that it
    ///   proves the password chosen at sign-up (``EmailVerification/unproven(by:on:)``).
    func prepare(
        _ purpose: EmailPurpose, for user: UserRecord, address: String, redirectTo: String?, pkce: PKCEChallenge?, ipAddress: String,
        audit: AuditEntry? = nil, issuedAt: Date? = nil
    ) -> Pending {
        let now = issuedAt ?? clock.now()
        let linkToken = (pkce == nil ? "" : "pkce_") + OpaqueTokens.random()
        let code = OpaqueTokens.randomCode()
        var updated = user
        var action = AuditEntry.Action.userModified
        switch purpose {
        case .signup:
            updated.confirmationSentAt = now
            action = .userConfirmationRequested
        case .invite:
            updated.confirmationSentAt = now
            updated.invitedAt = now
            action = .userInvited
        case .recovery, .magicLink:
            updated.recoverySentAt = now
            action = .userRecoveryRequested
        case .emailChange:
            updated.emailChangeSentAt = now
            updated.newEmail = address
        case .emailChangeCurrent:
            // The pending address is already on `user`; this token goes to the current one.
            updated.emailChangeSentAt = now
        case .reauthentication:
            action = .userReauthenticateRequested
        }
        updated.updatedAt = now
        let flow = pkce.map { pkce in
            FlowState(
                userID: user.id, authenticationMethod: purpose.authenticationMethod, codeChallenge: pkce.challenge,
                codeChallengeMethod: pkce.method, createdAt: now)
        }
        let token = OneTimeToken(
            userID: user.id, kind: purpose.kind, tokenHash: OpaqueTokens.hash(linkToken),
            codeHash: tokens.codeHash(code, address: address), relatesTo: address, createdAt: now)
        let redirect = settings.redirects.resolve(redirectTo)
        var link: String?
        if purpose != .reauthentication {
            var components = URLComponents(string: settings.externalURL + "/verify")!
            components.queryItems = [
                URLQueryItem(name: "token", value: linkToken), URLQueryItem(name: "type", value: purpose.verificationType),
                URLQueryItem(name: "redirect_to", value: redirect),
            ]
            link = components.url!.absoluteString
        }
        return Pending(
            purpose: purpose, address: address, token: token, flow: flow, user: updated,
            audit: audit ?? AuditEntry(action: action, actorID: user.id, actorUsername: user.email, ipAddress: ipAddress, createdAt: now),
            issued: Issued(link: link, code: code, linkToken: linkToken, redirectTo: redirect))
    }

    /// Issues a token of `purpose` and mails it to `address`. A mail that cannot be handed over
    /// is GoTrue's 500 "Error sending … email", logged without the link or the code.
    ///
    /// - Parameter slot: the rate-limit slot the caller took for this email
    ///   (``RateLimits/admitEmail(to:for:)``), given back when no email goes out.
    func send(
        _ purpose: EmailPurpose, to user: UserRecord, address: String, redirectTo: String?, pkce: PKCEChallenge?, ipAddress: String,
        audit: AuditEntry? = nil, slot: RateLimits.MessageSlot?
    ) async throws {
        do {
            let pending = prepare(purpose, for: user, address: address, redirectTo: redirectTo, pkce: pkce, ipAddress: ipAddress, audit: audit)
            if let flow = pending.flow { try await store.saveFlowState(flow) }
            try await store.saveOneTimeToken(pending.token, updatingUser: pending.user, audit: pending.audit)
            try await deliver(pending, slot: nil)
        } catch {
            if let slot { await limits.release(slot) }
            throw error
        }
    }

    /// Starts the change of `user`'s address to `newEmail`: a token and mail to the new address
    /// and, with secure email change (when the user has an address), one to the current
    /// address too; the change applies once every token issued here is redeemed
    /// (``EmailVerification``). The current address's token is stored first, so a failure
    /// never leaves the new address's token alone.
    func sendEmailChange(
        to user: UserRecord, newEmail: String, redirectTo: String?, pkce: PKCEChallenge?, ipAddress: String, slot: RateLimits.MessageSlot?
    ) async throws {
        do {
            let toNew = prepare(.emailChange, for: user, address: newEmail, redirectTo: redirectTo, pkce: pkce, ipAddress: ipAddress)
            var toCurrent: Pending?
            if settings.secureEmailChange, !user.email.isEmpty {
                let current = prepare(
                    .emailChangeCurrent, for: toNew.user, address: user.email, redirectTo: redirectTo, pkce: pkce, ipAddress: ipAddress)
                try await store.saveOneTimeToken(current.token, updatingUser: nil, audit: nil)
                toCurrent = current
            }
            if let flow = toNew.flow { try await store.saveFlowState(flow) }
            try await store.saveOneTimeToken(toNew.token, updatingUser: toNew.user, audit: toNew.audit)
            if let hook {
                try await hand(toNew, to: hook, pairedWith: toCurrent)
            } else {
                if let toCurrent { try await deliver(toCurrent, slot: nil) }
                try await deliver(toNew, slot: nil)
            }
        } catch {
            if let slot { await limits.release(slot) }
            throw error
        }
    }

    /// Mails a stored token, or with the send email hook on hands it to the hook. A mail that
    /// cannot be handed over is GoTrue's 500 "Error sending … email", and a hook that refuses
    /// or fails answers its error; either is logged without the link or the code, and `slot`
    /// (the rate-limit slot taken for it) is given back then.
    func deliver(_ pending: Pending, slot: RateLimits.MessageSlot?) async throws {
        let purpose = pending.purpose
        if let hook {
            do {
                try await hand(pending, to: hook)
            } catch {
                if let slot { await limits.release(slot) }
                throw error
            }
            return
        }
        do {
            try await mailer.send(message(for: pending))
            ResponsePadding.markSent()
        } catch {
            if let slot { await limits.release(slot) }
            // Mailers' errors carry no credentials (SMTPError blanks them out of server replies).
            let transient = (error as? any MailDeliveryFailure)?.isTransient
            logger.error(
                "email not sent",
                metadata: [
                    "purpose": "\(purpose.rawValue)", "email_hash": "\(EmailHash.of(pending.address))", "error": "\(String(describing: error))",
                    "transient": "\(transient.map(String.init) ?? "unknown")",
                ])
            throw AuthError.mailNotSent(purpose.mailName)
        }
    }

    /// Hands a stored token's email to the send email hook, as GoTrue describes it: one call
    /// for both halves of an email change, `token`/`token_hash_new` the current address's code
    /// and link token and `token_new`/`token_hash` the new one's (GoTrue's pairing); without a
    /// current half, `token` and `token_hash` are the new address's. The hook's error is the
    /// answer; it is logged by its code only, never with the token.
    private func hand(_ pending: Pending, to hook: SendEmailHook, pairedWith current: Pending? = nil) async throws(AuthError) {
        var data = SendEmailHook.EmailData(
            actionType: pending.purpose.verificationType, token: pending.issued.code,
            tokenHash: pending.issued.link == nil ? "" : pending.issued.linkToken,
            redirectTo: pending.issued.redirectTo)
        if let current {
            data.token = current.issued.code
            data.tokenNew = pending.issued.code
            data.tokenHashNew = current.issued.linkToken
        }
        do {
            try await hook.send(data, about: pending.user)
            ResponsePadding.markSent()
        } catch {
            logger.error(
                "email not sent: the send email hook failed",
                metadata: ["purpose": "\(pending.purpose.rawValue)", "email_hash": "\(EmailHash.of(pending.address))", "error_code": "\(error.code)"])
            throw error
        }
    }

    /// The email of a pending token, from the templates.
    func message(for pending: Pending) -> MailMessage {
        templates.message(
            pending.purpose,
            MailTemplates.Context(
                to: pending.address, email: pending.user.email, confirmationURL: pending.issued.link, token: pending.issued.code,
                tokenHash: pending.issued.link == nil ? nil : pending.issued.linkToken, siteURL: settings.redirects.siteURL,
                redirectTo: pending.issued.link == nil ? nil : pending.issued.redirectTo,
                newEmail: pending.purpose.kind == .emailChange || pending.purpose.kind == .emailChangeCurrent ? pending.user.newEmail : nil,
                data: pending.user.userMetadata))
    }

    // MARK: Requests

    /// `POST /recover`: mails a recovery link and code when the address has an account that is
    /// not banned. The answer is the same either way — the rate limit counts the request
    /// whether or not the account exists — so it cannot be used to find accounts.
    func recover(_ body: EmailBody, queryRedirect: String?, ipAddress: String) async throws {
        let email = try InputRules.normalizedEmail(body.email)
        let pkce = try PKCEChallenge(challenge: body.code_challenge, method: body.code_challenge_method)
        let slot = try await limits.admitEmail(to: email, for: .recovery)
        if let user = try await store.user(email: email), !user.isBanned(at: clock.now()) {
            try await send(
                .recovery, to: user, address: email, redirectTo: body.redirect_to ?? queryRedirect, pkce: pkce, ipAddress: ipAddress, slot: slot)
        }
    }

    /// `POST /resend`: sends the sign-up confirmation (or the pending email change) again, when
    /// there is one to send; the answer is the same either way.
    func resend(_ body: EmailBody, queryRedirect: String?, ipAddress: String) async throws {
        let type = body.type ?? "signup"
        if type == "sms" || type == "phone_change" || (body.phone != nil && body.email == nil) {
            throw AuthError.phoneProviderDisabled("Phone logins are disabled")
        }
        guard let purpose = ["signup": EmailPurpose.signup, "email_change": .emailChange][type] else {
            throw AuthError.validation("Missing one of these types: signup, email_change, sms, phone_change")
        }
        let email = try InputRules.normalizedEmail(body.email)
        let pkce = try PKCEChallenge(challenge: body.code_challenge, method: body.code_challenge_method)
        let slot = try await limits.admitEmail(to: email, for: purpose)
        let redirect = body.redirect_to ?? queryRedirect
        guard let user = try await store.user(email: email), !user.isBanned(at: clock.now()) else { return }
        if purpose == .signup, user.emailConfirmedAt == nil {
            try await send(.signup, to: user, address: email, redirectTo: redirect, pkce: pkce, ipAddress: ipAddress, slot: slot)
        } else if purpose == .emailChange, let pending = user.newEmail {
            try await sendEmailChange(to: user, newEmail: pending, redirectTo: redirect, pkce: pkce, ipAddress: ipAddress, slot: slot)
        }
    }
}
