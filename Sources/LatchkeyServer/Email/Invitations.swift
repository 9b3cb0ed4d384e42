import Foundation
import LatchkeyWire

/// `POST /invite` and `POST /admin/generate_link`: the administrator's ways to hand out email
/// links — mailed by the server (an invitation), or returned for the caller to deliver.
struct Invitations: ServiceDependent {
    let shared: ServiceDependencies
    let emailLinks: EmailLinks

    /// `POST /invite`: creates the account (no password) unless an unconfirmed one exists, and
    /// mails it an invitation link and code. An address with a confirmed account is 422
    /// `email_exists`.
    func invite(_ body: InviteBody, queryRedirect: String?, ipAddress: String) async throws -> UserResponse {
        let email = try InputRules.normalizedEmail(body.email)
        let user = try await invitee(email, data: body.data)
        try await emailLinks.send(
            .invite, to: user, address: email, redirectTo: queryRedirect, pkce: nil, ipAddress: ipAddress,
            audit: adminAudit(.userInvited, user, ipAddress: ipAddress), slot: nil)
        return UserResponse(try await store.user(id: user.id) ?? user)
    }

    /// `POST /admin/generate_link`: issues the link and code of `type` without mailing them, and
    /// answers them with the user, as GoTrue does. `signup` and `magiclink` create the account
    /// when there is none (`magiclink` then becomes a `signup` link); `recovery` and the email
    /// change types need an existing account (404 `user_not_found`).
    func generateLink(_ body: GenerateLinkBody, ipAddress: String) async throws -> GenerateLinkResponse {
        var type = body.type ?? ""
        let requested = type
        let email = try InputRules.normalizedEmail(body.email)
        let existing = try await store.user(email: email)
        let validTypes = ["signup", "invite", "magiclink", "recovery", "email_change_current", "email_change_new"]
        guard validTypes.contains(type) else { throw AuthError.validation("Invalid email action link type requested: \(type)") }
        if existing == nil {
            switch type {
            case "magiclink": type = "signup"
            case "recovery", "email_change_current", "email_change_new":
                throw AuthError.noUserWithEmail
            default: break
            }
        }
        let now = clock.now()
        let issued: EmailLinks.Issued
        let user: UserRecord
        switch type {
        case "signup":
            if let existing, existing.emailConfirmedAt != nil { throw AuthError.emailExists }
            var record: UserRecord
            if let existing {
                record = existing
                if let data = body.data { record.userMetadata.merge(data) { _, new in new } }
                issued = try await emailLinks.issue(
                    .signup, for: record, address: email, redirectTo: body.redirect_to, pkce: nil, ipAddress: ipAddress)
            } else {
                // A magic link for a new address signs up an account without a password.
                var passwordHash: String?
                if requested != "magiclink" {
                    guard let password = body.password else { throw AuthError.validation("Signup requires a valid password") }
                    passwordHash = try await passwords.hash(password)
                }
                record = UserRecord(email: email, passwordHash: passwordHash, userMetadata: body.data ?? [:], createdAt: now, updatedAt: now)
                if let beforeUserCreated { try await beforeUserCreated.check(record) }
                // The account and its confirmation link in one transaction; the link is stamped
                // with the account's creation, so it proves the password set with it.
                let link = emailLinks.prepare(
                    .signup, for: record, address: email, redirectTo: body.redirect_to, pkce: nil, ipAddress: ipAddress,
                    issuedAt: record.createdAt)
                try await store.insertUser(link.user, audit: nil, start: .confirmation(link.token, flow: nil, audit: link.audit))
                try await afterUserCreated?.notify(link.user)
                issued = link.issued
            }
            user = record
        case "invite":
            user = try await invitee(email, data: body.data)
            issued = try await emailLinks.issue(
                .invite, for: user, address: email, redirectTo: body.redirect_to, pkce: nil, ipAddress: ipAddress,
                audit: adminAudit(.userInvited, user, ipAddress: ipAddress))
        case "magiclink", "recovery":
            user = existing!
            issued = try await emailLinks.issue(
                type == "magiclink" ? .magicLink : .recovery, for: user, address: email,
                redirectTo: body.redirect_to, pkce: nil, ipAddress: ipAddress)
        default:  // email_change_current, email_change_new
            guard type == "email_change_new" || emailLinks.settings.secureEmailChange else {
                throw AuthError.validation("Enable secure email change to generate link for current email")
            }
            let newEmail = try InputRules.normalizedEmail(body.new_email)
            if let owner = try await store.user(email: newEmail), owner.id != existing!.id { throw AuthError.emailExists }
            if type == "email_change_new" {
                user = existing!
                issued = try await emailLinks.issue(
                    .emailChange, for: user, address: newEmail, redirectTo: body.redirect_to, pkce: nil, ipAddress: ipAddress)
            } else {
                // The link for the current address; the pending address is saved with it.
                var pending = existing!
                pending.newEmail = newEmail
                user = pending
                issued = try await emailLinks.issue(
                    .emailChangeCurrent, for: pending, address: email, redirectTo: body.redirect_to, pkce: nil, ipAddress: ipAddress)
            }
        }
        let stored = try await store.user(id: user.id) ?? user
        return GenerateLinkResponse(
            user: UserResponse(stored), action_link: issued.link ?? "", email_otp: issued.code, hashed_token: issued.linkToken,
            verification_type: type, redirect_to: issued.redirectTo)
    }

    /// The account an invitation goes to: the unconfirmed one of `email`, or a new one.
    private func invitee(_ email: String, data: [String: JSONValue]?) async throws -> UserRecord {
        if let existing = try await store.user(email: email) {
            guard existing.emailConfirmedAt == nil else { throw AuthError.emailExists }
            return existing
        }
        let now = clock.now()
        let user = UserRecord(email: email, passwordHash: nil, userMetadata: data ?? [:], createdAt: now, updatedAt: now)
        if let beforeUserCreated { try await beforeUserCreated.check(user) }
        try await insert(user, ipAddress: "")
        try await afterUserCreated?.notify(user)
        return user
    }

    private func insert(_ user: UserRecord, ipAddress: String) async throws {
        try await store.insertUser(user, audit: nil)
    }

    private func adminAudit(_ action: AuditEntry.Action, _ user: UserRecord, ipAddress: String) -> AuditEntry {
        AuditEntry(
            action: action, actorID: nil, actorUsername: "service_role",
            traits: ["user_id": .string(user.id.lowercasedString), "user_email": .string(user.email)], ipAddress: ipAddress,
            createdAt: clock.now())
    }
}
