import Foundation
import LatchkeyWire
import Logging

/// `POST /token?grant_type=password`: signs in with an email address (or a phone number) and a
/// password.
///
/// An unknown address and a wrong password get the same answer in the same time. Failed
/// attempts count against the account, so guessing locks it for a while (even for the right
/// password) while other accounts are unaffected. A password stored by another system (see
/// ``StoredPasswordHash``) is verified as that system did and re-hashed with bcrypt on its
/// first successful use. A password that no longer meets the rules signs in, and the session
/// says so in `weak_password`.
struct PasswordGrant: TokenGrant {
    static let grantType = "password"
    static let metric = GrantMetric.signIn

    private let dependencies: FeatureDependencies
    /// The password verification attempt hook, when it is on.
    private let attemptHook: VerificationAttemptHook?

    init(_ dependencies: FeatureDependencies) {
        self.dependencies = dependencies
        // The configuration was validated at start: an unusable endpoint never gets here.
        attemptHook = (try? dependencies.configuration.hooks.passwordVerificationAttemptEndpoint())?.map {
            VerificationAttemptHook(dispatcher: dependencies.hookDispatcher($0), kind: .password)
        }
    }

    func session(for body: PasswordGrantBody, ipAddress: String) async throws -> SessionResponse {
        try await dependencies.limits.admitSignIn(from: ipAddress)
        // A phone number instead of an address: the account is found by it, its failures counted
        // under it (digits only, so never an address's key), and it must be confirmed.
        if body.email != nil, !(body.phone ?? "").isEmpty {
            throw AuthError.validation("Only an email address or phone number should be provided on login.")
        }
        if !(body.email ?? "").isEmpty, !dependencies.configuration.emailEnabled { throw AuthError.emailLoginsDisabled }
        let phone = body.email == nil ? try Self.phone(body.phone, enabled: dependencies.configuration.phone.enabled) : nil
        let account = try phone ?? InputRules.normalizedEmail(body.email)
        guard let password = body.password, !password.isEmpty else { throw AuthError.validation("Missing password") }
        // A password bcrypt would cut (NUL, over 72 bytes) can match no account: refused as sign-up refuses it.
        try PasswordPolicy.checkUsable(password)
        try await dependencies.limits.checkPasswordAttempts(for: account)
        let found: UserRecord?
        if phone == nil {
            found = try await dependencies.store.user(email: account)
        } else {
            found = try await dependencies.store.user(phone: account)
        }
        let check = try await dependencies.passwords.check(password, against: found?.passwordHash)
        if !check.matches { try await dependencies.limits.recordFailedPassword(for: account) }
        // The hook sees every attempt on an account with a password, right or wrong, and may
        // refuse a right one; a hook that cannot be asked refuses it too (its error). A banned
        // account's attempts never reach it, as in GoTrue; the ban itself is only told to
        // someone who knows the password (below), which GoTrue tells anyone.
        if let hook = attemptHook, let found, found.passwordHash != nil,
            !found.isBanned(at: dependencies.clock.now())
        {
            try await Self.ask(hook, about: found, valid: check.matches, ipAddress: ipAddress, dependencies)
        }
        guard check.matches, var user = found else {
            dependencies.logger.info("sign-in refused: invalid credentials", metadata: ["email_hash": "\(EmailHash.of(account))"])
            throw AuthError.invalidCredentials
        }
        try await dependencies.limits.forgetFailedPasswords(for: account)
        if phone != nil {
            guard user.phoneConfirmedAt != nil else { throw AuthError.phoneNotConfirmed }
        } else {
            guard user.emailConfirmedAt != nil else { throw AuthError.emailNotConfirmed }
        }
        guard !user.isBanned(at: dependencies.clock.now()) else { throw AuthError.userBanned }
        // An imported hash (Firebase scrypt) or a bcrypt of another cost is replaced in the
        // session's own write.
        if check.needsRehash { user.passwordHash = try await dependencies.passwords.rehash(password) }
        var session = try await dependencies.sessions.start(for: user, method: "password", ipAddress: ipAddress)
        // A password chosen before the rules changed (or found in a breach since) still signs
        // in; the app is told, as GoTrue does.
        session.weak_password = await dependencies.passwords.signInNotice(for: password)
        return session
    }

    /// Throws the password verification attempt hook's refusal of an attempt on `user` (400
    /// `invalid_credentials` with its message, every session of the user ended first when it
    /// says so), or its error.
    private static func ask(
        _ hook: VerificationAttemptHook, about user: UserRecord, valid: Bool, ipAddress: String, _ dependencies: FeatureDependencies
    ) async throws {
        guard let rejection = try await hook.decide(userID: user.id, valid: valid, ipAddress: ipAddress) else { return }
        if rejection.shouldLogoutUser { _ = try await dependencies.store.endSessions(userID: user.id, except: nil, only: nil, audit: nil) }
        dependencies.logger.info("sign-in refused by the password verification attempt hook", metadata: ["user_id": "\(user.id)"])
        throw AuthError.passwordAttemptRejected(rejection.message)
    }

    /// The number of a sign-in by phone (`nil`: none given, the address is used), as GoTrue
    /// reads it here: a leading `+` and spaces dropped, no other check (an odd number simply
    /// matches no account).
    private static func phone(_ raw: String?, enabled: Bool) throws(AuthError) -> String? {
        guard let raw, !raw.isEmpty else { return nil }
        guard enabled else { throw AuthError.phoneLoginsDisabled }
        return (raw.hasPrefix("+") ? raw.dropFirst() : Substring(raw)).replacingOccurrences(of: " ", with: "")
    }
}
