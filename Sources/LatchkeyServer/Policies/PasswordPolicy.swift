import Foundation
import LatchkeyWire

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

    /// What a password sign-in tells the app when the password no longer meets the rules
    /// (GoTrue's `weak_password` on the session); `nil` when it does.
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

    /// Refuses a new password that breaks ``check(_:minimumLength:)``.
    func check(_ password: String) throws(AuthError) {
        try Self.check(password, minimumLength: minimumLength, requiredCharacters: requiredCharacters)
    }

    /// Checks a new password and returns its bcrypt hash.
    func hash(_ password: String) async throws -> String {
        try check(password)
        return try await hasher.hash(password)
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
