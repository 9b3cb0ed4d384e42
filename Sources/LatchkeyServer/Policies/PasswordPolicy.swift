import Foundation
import LatchkeyWire
import Logging

/// Passwords: what a new one must be, how it is stored and checked, and what changing one does.
///
/// Every path that sets a password goes through ``hash(_:)``: sign-up, `PUT /user`, and the
/// admin API's create and update. Every path that changes the password of an existing account
/// saves it with ``AuthStore/updateUser(_:audit:endingSessions:)``, which ends the user's other
/// sessions in the same transaction, so whoever knew the old one is signed out — even if the
/// server stops right after. (A new account has no sessions yet.)
struct PasswordPolicy: Sendable {
    let minimumLength: Int
    /// Sets of characters a new password must each take one character from (GoTrue's
    /// `GOTRUE_PASSWORD_REQUIRED_CHARACTERS`); empty: none.
    var requiredCharacters: [String] = []
    let hasher: PasswordHasher
    /// Leaked-password protection, when on; `failClosed` refuses new passwords while the API
    /// cannot be asked (GoTrue's `GOTRUE_PASSWORD_HIBP_FAIL_CLOSED`), otherwise they are allowed.
    var pwned: (passwords: PwnedPasswords, failClosed: Bool)?

    /// The most bytes of a password bcrypt uses; longer ones are refused, never cut.
    static let maximumBytes = 72

    /// Refuses passwords too short for `minimumLength` characters or missing a character of one
    /// of `requiredCharacters`' sets (422 `weak_password`, with GoTrue's reasons `length` and
    /// `characters` and its messages), longer than bcrypt can use (72 bytes; 400
    /// `validation_failed`) or holding a NUL character (422 `validation_failed`). Passwords are
    /// never trimmed or changed in any way.
    static func check(_ password: String, minimumLength: Int, requiredCharacters: [String] = []) throws(AuthError) {
        try checkUsable(password)
        if let weakness = weakness(of: password, minimumLength: minimumLength, requiredCharacters: requiredCharacters) {
            throw AuthError.weakPassword(weakness)
        }
    }

    /// Why `password` breaks the length and character rules, in GoTrue's words; `nil` when it
    /// keeps them.
    static func weakness(of password: String, minimumLength: Int, requiredCharacters: [String]) -> SessionResponse.WeakPasswordNotice? {
        var reasons: [String] = []
        var messages: [String] = []
        if password.count < minimumLength {
            reasons.append("length")
            messages.append("Password should be at least \(minimumLength) characters.")
        }
        if requiredCharacters.contains(where: { set in !set.isEmpty && !password.unicodeScalars.contains { set.unicodeScalars.contains($0) } }) {
            reasons.append("characters")
            messages.append("Password should contain at least one character of each: \(requiredCharacters.joined(separator: ", ")).")
        }
        return reasons.isEmpty ? nil : SessionResponse.WeakPasswordNotice(message: messages.joined(separator: " "), reasons: reasons)
    }

    /// The length and character rules `password` no longer meets; `nil` when it meets them.
    func weakness(of password: String) -> SessionResponse.WeakPasswordNotice? {
        Self.weakness(of: password, minimumLength: minimumLength, requiredCharacters: requiredCharacters)
    }

    /// Refuses a password that bcrypt cannot use as it is, new or presented at sign-in: a NUL
    /// character (bcrypt stops at the first one, so "\u{0}abc" would match any password that
    /// starts with NUL; 422 `validation_failed`) or more than 72 bytes (bcrypt ignores the rest;
    /// 400 `validation_failed`, as GoTrue's `checkPasswordStrength`).
    static func checkUsable(_ password: String) throws(AuthError) {
        if password.utf8.contains(0) { throw AuthError.passwordHasNUL }
        if password.utf8.count > maximumBytes {
            throw AuthError.validation("Password cannot be longer than \(maximumBytes) bytes")
        }
    }

    /// Refuses a new password that breaks ``check(_:minimumLength:requiredCharacters:)`` or,
    /// with leaked-password protection on, appears in a known breach (reason `pwned`, with
    /// GoTrue's message; every reason of the password is given at once, as GoTrue does). When
    /// the breach API cannot be asked, the password is allowed and a warning logged, or, failing
    /// closed, 500 as GoTrue answers.
    func check(_ password: String) async throws {
        try Self.checkUsable(password)
        var weakness = weakness(of: password)
        if let pwned, try await isPwned(password, pwned.passwords, failClosed: pwned.failClosed) {
            weakness = Self.adding(pwned: weakness)
        }
        if let weakness { throw AuthError.weakPassword(weakness) }
    }

    /// What a password sign-in tells the app about the password it used: the rules it no
    /// longer meets and, with leaked-password protection on, `pwned` when it appears in a known
    /// breach (GoTrue asks on every password sign-in too). Never refuses the sign-in: when the
    /// API cannot be asked, only the rules are reported.
    func signInNotice(for password: String) async -> SessionResponse.WeakPasswordNotice? {
        let weakness = weakness(of: password)
        guard let pwned, (try? await isPwned(password, pwned.passwords, failClosed: false)) == true else { return weakness }
        return Self.adding(pwned: weakness)
    }

    /// `weakness` with GoTrue's `pwned` reason and message added.
    private static func adding(pwned weakness: SessionResponse.WeakPasswordNotice?) -> SessionResponse.WeakPasswordNotice {
        SessionResponse.WeakPasswordNotice(
            message: [weakness?.message ?? "", "Password is known to be weak and easy to guess, please choose a different one."]
                .filter { !$0.isEmpty }.joined(separator: " "),
            reasons: (weakness?.reasons ?? []) + ["pwned"])
    }

    private func isPwned(_ password: String, _ passwords: PwnedPasswords, failClosed: Bool) async throws -> Bool {
        do {
            return try await passwords.isPwned(password)
        } catch {
            guard failClosed else {
                passwords.logger.warning(
                    "Pwned Passwords could not be asked; the password is allowed", metadata: ["error": "\(error)"])
                return false
            }
            passwords.logger.error("Pwned Passwords could not be asked; the password is refused", metadata: ["error": "\(error)"])
            throw AuthError.pwnedCheckUnavailable
        }
    }

    /// Checks a new password and returns its bcrypt hash.
    func hash(_ password: String) async throws -> String {
        try await check(password)
        return try await hasher.hash(password)
    }

    /// The bcrypt hash of a new password already checked with ``check(_:)``.
    func hash(checked password: String) async throws -> String {
        try await hasher.hash(password)
    }

    /// Whether `password` matches `hash`; with no hash (no such account, or no password set) it
    /// takes as long as a wrong password and fails.
    func verify(_ password: String, against hash: String?) async throws -> Bool {
        try await hasher.verify(password, against: hash)
    }

    /// As ``verify(_:against:)``, saying also whether the matched hash should be replaced by
    /// ``rehash(_:)`` (an imported hash, or bcrypt of another cost).
    func check(_ password: String, against hash: String?) async throws -> PasswordCheck {
        try await hasher.check(password, against: hash)
    }

    /// The server's own hash of a password the user has just proved, with no policy check: a
    /// password chosen under another system's rules keeps working.
    func rehash(_ password: String) async throws -> String {
        try await hasher.hash(password)
    }
}
