import Foundation
import LatchkeyWire

/// `POST /otp` and `POST /magiclink`: sign-in by email, with a link and a code.
///
/// An address with a confirmed account gets a magic-link email. An address without one gets a
/// sign-up confirmation (which signs in just the same) and, when `create_user` allows it, an
/// account with no password. The answer is `{}` in every case — with `create_user: false` as
/// well, where GoTrue answers 422 for an unknown address and so tells which addresses have
/// accounts; Latchkey then simply sends nothing. A new account whose email cannot be sent is
/// not kept.
struct EmailSignIn: ServiceDependent {
    let shared: ServiceDependencies
    let emailLinks: EmailLinks
    let signUpDisabled: Bool
    /// Whether a new account is confirmed at once (it then gets a magic link, not a confirmation).
    let autoconfirm: Bool

    /// Mails `body.email` a sign-in link and code; `queryRedirect` is the request's
    /// `redirect_to` parameter.
    func send(_ body: OTPBody, queryRedirect: String?, ipAddress: String) async throws {
        if body.email != nil, body.phone != nil { throw AuthError.validation("Only an email address or phone number should be provided") }
        if body.email != nil, body.channel != nil { throw AuthError.validation("Channel should only be specified with Phone OTP") }
        let pkce = try PKCEChallenge(challenge: body.code_challenge, method: body.code_challenge_method)
        if body.email == nil {
            if body.phone != nil { throw AuthError.phoneProviderDisabled() }
            throw AuthError.validation("One of email or phone must be set")
        }
        let email = try InputRules.normalizedEmail(body.email)
        try await limits.admitSignIn(from: ipAddress)
        let existing = try await store.user(email: email)
        if let existing, existing.emailConfirmedAt != nil {
            let slot = try await limits.admitEmail(to: email, for: .magicLink)
            guard !existing.isBanned(at: clock.now()) else { return }
            try await emailLinks.send(
                .magicLink, to: existing, address: email, redirectTo: queryRedirect, pkce: pkce, ipAddress: ipAddress, slot: slot)
            return
        }
        let purpose: EmailPurpose = existing == nil && autoconfirm ? .magicLink : .signup
        let slot = try await limits.admitEmail(to: email, for: purpose)
        if let existing {
            try await emailLinks.send(.signup, to: existing, address: email, redirectTo: queryRedirect, pkce: pkce, ipAddress: ipAddress, slot: slot)
            return
        }
        guard body.create_user ?? true, !signUpDisabled else { return }
        let now = clock.now()
        var user = UserRecord(email: email, passwordHash: nil, userMetadata: body.data ?? [:], createdAt: now, updatedAt: now)
        if autoconfirm { user.emailConfirmedAt = now }
        if let beforeUserCreated {
            do {
                try await beforeUserCreated.check(user)
            } catch {
                await limits.release(slot)  // nothing was mailed
                throw error
            }
        }
        do {
            try await store.insertUser(
                user,
                audit: AuditEntry(
                    action: .userSignedUp, actorID: user.id, actorUsername: email,
                    traits: ["provider": .string("email")], ipAddress: ipAddress, createdAt: now))
        } catch StoreError.duplicateEmail {
            return  // signed up a moment ago by another request, which mails the link
        } catch {
            await limits.release(slot)  // nothing was mailed
            throw error
        }
        do {
            try await emailLinks.send(purpose, to: user, address: email, redirectTo: queryRedirect, pkce: pkce, ipAddress: ipAddress, slot: slot)
        } catch {
            // Nothing was mailed: the new account, which has no password, could never be
            // signed in to, so it is not kept (as GoTrue, whose sign-up and mail are one
            // transaction).
            _ = try? await store.deleteUser(id: user.id, audit: nil)
            throw error
        }
        try await afterUserCreated?.notifySignedUp(user)
    }
}
