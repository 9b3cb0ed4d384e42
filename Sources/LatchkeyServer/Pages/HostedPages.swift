import Foundation
import LatchkeyWire

/// The server's own pages for email links, used when the site URL is the server itself (a
/// standalone server started without `--site-url`): following a link lands on a page that says
/// what happened instead of on a URL fragment that only an app can read.
///
/// `GET /verify` still spends the token as GoTrue does; only where it sends the browser changes.
/// A confirmation shows "Email confirmed", an email change "Email changed", a spent or expired
/// link an error page with a form to request a new one. A recovery (or invitation) link starts
/// a session on the server, and the browser gets a set-new-password form for it:
///
/// - The session never leaves the server: no access or refresh token is handed out, put in a URL
///   or logged. The browser holds a *form ticket* in an HttpOnly, SameSite=Lax cookie
///   (Secure when the server's URL is https): the session's id, an expiry ([formTTL]) and a
///   random nonce, under a MAC keyed from the server secret, so it cannot be forged or altered.
///   (Lax, not Strict: a browser that arrives from a link in a web mail sends no Strict cookie
///   on the redirected GET, so the form page could not find its ticket.)
/// - The form carries a CSRF field derived from the ticket under the same key; a cross-site
///   POST carries neither the Lax cookie nor the field, and is refused by its `Sec-Fetch-Site`
///   / `Origin` too.
/// - Posting the form first ends the ticket's session — whoever ends it is the one request that
///   may change the password — then saves the password through ``PasswordPolicy`` and ends
///   every other session of the user. The ticket is then spent: its session is gone. An expired
///   ticket, a wrong or missing CSRF field, or a spent ticket changes nothing.
///
/// Nothing here reads HTTP; the routes (`HostedPageRoutes`) render ``PageTemplates``.
struct HostedPages: ServiceDependent {
    /// How long a set-new-password form stays usable after its link was followed.
    static let formTTL: TimeInterval = 900
    /// The cookie that holds the form ticket.
    static let ticketCookie = "latchkey_form_ticket"

    /// Where following a link lands, as a path below the server's root.
    struct Landing: Sendable, Equatable {
        /// `welcome/confirmed`, `welcome/link-error?code=…&type=…`, …: relative, so a gateway
        /// prefix (`/auth/v1`) is kept.
        var location: String
        /// A set-new-password form's ticket, for the cookie.
        var ticket: String?
    }

    /// What a set-new-password page shows.
    struct PasswordForm: Sendable, Equatable {
        /// The session the ticket stands for, and its user.
        var session: SessionRecord
        var user: UserRecord
        var csrf: String
        /// `true` for an invitation (choosing a first password), `false` for recovery.
        var isInvitation: Bool

        var email: String { user.email }
    }

    /// The session a form ticket stands for, its user, and whether it is an invitation's.
    typealias FormSession = (session: SessionRecord, user: UserRecord, isInvitation: Bool)

    /// Why a form post changed nothing.
    enum Refusal: Error, Equatable {
        /// No ticket, a forged or expired one, or one already used.
        case formExpired(isInvitation: Bool)
        /// The CSRF field is missing or does not belong to the ticket, or the post came from
        /// another site.
        case forged
        /// The password cannot be used; the form is shown again with `message`.
        case unusablePassword(form: PasswordForm, message: String)
    }

    let shared: ServiceDependencies
    let verification: EmailVerification
    let emailLinks: EmailLinks
    let settings: EmailLinks.Settings
    /// The minimum password length the form names.
    let minimumPasswordLength: Int

    /// Whether the server itself is on the secure scheme (then cookies are `Secure`).
    var isSecure: Bool { settings.externalURL.lowercased().hasPrefix("https:") }

    // MARK: Following a link

    /// Whether a link with `redirectTo` lands on these pages: the site URL is the server itself,
    /// the link is not a PKCE link (whose code is for the app that holds the verifier), and
    /// `redirect_to` does not name another allowed URL. Everything else keeps GoTrue's redirect.
    func handles(redirectTo: String?, token: String?) -> Bool {
        guard settings.siteIsServer, !(token?.hasPrefix("pkce_") ?? false) else { return false }
        let resolved = settings.redirects.resolve(redirectTo)
        guard let target = URL(string: resolved), let site = URL(string: settings.redirects.siteURL) else { return false }
        return target.scheme?.lowercased() == site.scheme?.lowercased() && target.host?.lowercased() == site.host?.lowercased()
            && target.port == site.port
    }

    /// `GET /verify` for a link that lands here: spends the token, applies it, and says which
    /// page to show. A recovery or invitation link starts a session on the server and returns
    /// the ticket of its form.
    func follow(type rawType: String?, token: String?, ipAddress: String) async throws -> Landing {
        do {
            let (type, applied) = try await verification.redeemLinkAndApply(type: rawType, token: token, ipAddress: ipAddress)
            guard let user = applied else { return Landing(location: "welcome/email-changed?pending") }
            switch type {
            case .signup, .magiclink, .email:
                return Landing(location: "welcome/confirmed")
            case .emailChange:
                return Landing(location: "welcome/email-changed")
            case .recovery, .invite:
                let sessionID = try await startFormSession(for: user, method: type == .recovery ? "recovery" : "otp", ipAddress: ipAddress)
                let ticket = makeTicket(sessionID: sessionID, isInvitation: type == .invite)
                return Landing(location: "welcome/password", ticket: ticket)
            }
        } catch {
            guard let error = AuthError(answering: error) else { throw error }
            var components = URLComponents()
            components.queryItems = [URLQueryItem(name: "code", value: error.code)]
            if let rawType, EmailVerification.VerificationType(rawValue: rawType) != nil {
                components.queryItems?.append(URLQueryItem(name: "type", value: rawType))
            }
            return Landing(location: "welcome/link-error?" + (components.percentEncodedQuery ?? ""))
        }
    }

    // MARK: The set-new-password form

    /// The form for `ticket`; ``Refusal/formExpired(isInvitation:)`` when the ticket is missing,
    /// forged, expired or spent.
    func passwordForm(ticket: String?) async throws -> PasswordForm {
        let (session, user, isInvitation) = try await validTicket(ticket)
        return PasswordForm(session: session, user: user, csrf: csrf(for: ticket ?? ""), isInvitation: isInvitation)
    }

    /// The session and user a post from the form acts for: the ticket authentic, unexpired and
    /// unspent, and `field` its CSRF value.
    ///
    /// - Parameter crossSite: the request came from another site (by `Sec-Fetch-Site` or
    ///   `Origin`): refused as ``Refusal/forged``.
    func formSession(ticket: String?, csrf field: String?, crossSite: Bool) async throws -> FormSession {
        guard !crossSite else { throw Refusal.forged }
        let (session, user, isInvitation) = try await validTicket(ticket)
        guard let ticket, let field, constantTimeEquals(field, csrf(for: ticket)) else { throw Refusal.forged }
        return (session, user, isInvitation)
    }

    /// `POST /welcome/password`: sets `password` for the ticket's user, once (the ticket and
    /// CSRF field checked by ``formSession(ticket:csrf:crossSite:)``).
    func changePassword(
        ticket: String?, csrf field: String?, password: String?, confirmation: String?, crossSite: Bool, ipAddress: String
    ) async throws {
        let (session, user, isInvitation) = try await formSession(ticket: ticket, csrf: field, crossSite: crossSite)
        let form = PasswordForm(session: session, user: user, csrf: field ?? "", isInvitation: isInvitation)
        let password = password ?? ""
        do {
            try await passwords.check(password)
        } catch let error as AuthError {
            throw Refusal.unusablePassword(form: form, message: error.message)
        }
        guard password == confirmation else {
            throw Refusal.unusablePassword(form: form, message: "The two passwords are not the same.")
        }
        // Ending the ticket's session is the claim: of two posts of one form, only one ends it.
        guard try await store.endSessions(userID: user.id, except: nil, only: session.id, audit: nil) == 1 else {
            throw Refusal.formExpired(isInvitation: isInvitation)
        }
        let now = clock.now()
        var updated = user
        updated.passwordHash = try await passwords.hash(checked: password)
        updated.updatedAt = now
        try await store.updateUser(
            updated,
            audit: AuditEntry(action: .userUpdatedPassword, actorID: user.id, actorUsername: user.email, ipAddress: ipAddress, createdAt: now),
            endingSessions: .all)
        notices.send(.passwordChanged, about: updated)
    }

    // MARK: Requesting a new link

    /// The link types whose error page offers to send a new link.
    static func canResend(type: String?) -> Bool { ["signup", "email_change", "recovery"].contains(type ?? "") }

    /// `POST /welcome/resend`: mails a new link of `type` (a sign-up confirmation, an email
    /// change, a recovery) through `/resend` or `/recover`, landing on these pages again. The
    /// answer is the same whether or not the address has an account.
    func resend(type: String?, email: String?, ipAddress: String) async throws {
        let body = EmailBody(email: email ?? "", type: type)
        switch type {
        case "recovery": try await emailLinks.recover(body, queryRedirect: nil, ipAddress: ipAddress)
        case "signup", "email_change": try await emailLinks.resend(body, queryRedirect: nil, ipAddress: ipAddress)
        default: throw AuthError.validation("A new link of this kind cannot be requested here")
        }
    }

    // MARK: Tickets

    private func makeTicket(sessionID: UUID, isInvitation: Bool) -> String {
        let expires = Int(clock.now().addingTimeInterval(Self.formTTL).timeIntervalSince1970)
        let body = ["v1", isInvitation ? "i" : "r", sessionID.lowercasedString, String(expires), OpaqueTokens.random(byteCount: 16)]
            .joined(separator: ".")
        return body + "." + tokens.formMAC("ticket|" + body)
    }

    private func csrf(for ticket: String) -> String { tokens.formMAC("csrf|" + ticket) }

    /// The session and user of a ticket that is authentic, unexpired and unspent.
    private func validTicket(_ ticket: String?) async throws -> (SessionRecord, UserRecord, isInvitation: Bool) {
        let parts = (ticket ?? "").split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let isInvitation = parts.count > 1 && parts[1] == "i"
        let refusal = Refusal.formExpired(isInvitation: isInvitation)
        guard parts.count == 6, parts[0] == "v1",
            constantTimeEquals(parts[5], tokens.formMAC("ticket|" + parts[0...4].joined(separator: "."))),
            let sessionID = UUID(uuidString: parts[2]), let expires = TimeInterval(parts[3])
        else { throw refusal }
        let now = clock.now()
        guard now.timeIntervalSince1970 < expires, let (session, user) = try await store.sessionWithUser(id: sessionID),
            session.notAfter.map({ now < $0 }) ?? true, !user.isBanned(at: now)
        else { throw refusal }
        return (session, user, isInvitation)
    }

    /// Starts the session a set-new-password form stands for: recorded like any sign-in by a
    /// link, but its refresh token is thrown away and no access token is signed, so nothing but
    /// the form ticket refers to it. Changing the password ends it.
    private func startFormSession(for user: UserRecord, method: String, ipAddress: String) async throws -> UUID {
        let now = clock.now()
        var user = user
        user.lastSignInAt = now
        user.updatedAt = now
        let session = SessionRecord(
            userID: user.id, createdAt: now, updatedAt: now, refreshedAt: now, notAfter: now.addingTimeInterval(Self.formTTL), authMethod: method)
        let audit = AuditEntry(
            action: .login, actorID: user.id, actorUsername: user.email,
            traits: ["provider": .string("email"), "method": .string(method)], ipAddress: ipAddress, createdAt: now)
        try await store.createSession(session, refreshTokenHash: OpaqueTokens.hash(OpaqueTokens.random()), updatingUser: user, audit: audit)
        return session.id
    }
}

extension FeatureDependencies {
    /// The hosted pages, for the features that land a browser on them (email links, browser
    /// sign-in).
    var hostedPages: HostedPages {
        HostedPages(
            shared: shared, verification: verification, emailLinks: emailLinks, settings: linkSettings,
            minimumPasswordLength: configuration.minimumPasswordLength)
    }
}
