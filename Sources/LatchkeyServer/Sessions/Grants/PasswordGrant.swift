import Foundation
import LatchkeyWire
import Logging

/// `POST /token?grant_type=password`: signs in with an email address and a password.
///
/// An unknown address and a wrong password get the same answer in the same time. Failed
/// attempts count against the account, so guessing locks it for a while (even for the right
/// password) while other accounts are unaffected. A password stored by another system (see
/// ``StoredPasswordHash``) is verified as that system did and re-hashed with bcrypt on its
/// first successful use. A password that no longer meets the rules signs in, and the session
/// says so in `weak_password`.
struct PasswordGrant: TokenGrant {
    static let grantType = "password"

    private let dependencies: GrantDependencies

    init(_ dependencies: GrantDependencies) {
        self.dependencies = dependencies
    }

    func session(for body: PasswordGrantBody, ipAddress: String) async throws -> SessionResponse {
        try await dependencies.limits.admitSignIn(from: ipAddress)
        let email = try InputRules.normalizedEmail(body.email)
        guard let password = body.password, !password.isEmpty else { throw AuthError.validation("Missing password") }
        // A password bcrypt would cut (NUL, over 72 bytes) can match no account: refused as sign-up refuses it.
        try PasswordPolicy.checkUsable(password)
        try await dependencies.limits.checkPasswordAttempts(for: email)
        let found = try await dependencies.store.user(email: email)
        let check = try await dependencies.passwords.check(password, against: found?.passwordHash)
        guard check.matches, var user = found else {
            try await dependencies.limits.recordFailedPassword(for: email)
            dependencies.logger.info("sign-in refused: invalid credentials", metadata: ["email_hash": "\(EmailHash.of(email))"])
            throw AuthError.invalidCredentials
        }
        try await dependencies.limits.forgetFailedPasswords(for: email)
        guard user.emailConfirmedAt != nil else { throw AuthError.emailNotConfirmed }
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
}
