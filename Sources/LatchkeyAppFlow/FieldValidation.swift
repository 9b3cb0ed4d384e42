import Foundation
internal import LatchkeyWire

/// The as-you-type verdict on an email field, made on the trimmed text;
/// ``AppFlowStrings`` words it.
///
/// Deliberately about shape only (`name@domain.tld`, no spaces or forbidden characters), like
/// the server's own check, so the form never blocks an address the server would accept.
public enum EmailValidation: Sendable, Hashable {
    /// Nothing typed yet: no verdict is shown.
    case empty
    /// The address looks deliverable.
    case valid
    /// The address is malformed.
    case invalid

    /// Validates `text` after trimming whitespace and newlines.
    public init(_ text: String) {
        let email = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if email.isEmpty {
            self = .empty
        } else {
            self = Self.isWellFormed(email) ? .valid : .invalid
        }
    }

    /// Whether `email` (trimmed) has the shape of an email address: the rule the server
    /// checks.
    static func isWellFormed(_ email: String) -> Bool {
        EmailRule.isWellFormed(email)
    }
}

/// What the server accepts as a password, checked as the person types on the sign-up form.
///
/// The minimum length comes from the server's `/settings` (``AuthServerSettings``), so the form
/// and the server never disagree. Passwords are counted in characters, like the server, and
/// never trimmed.
public struct PasswordRules: Sendable, Hashable {
    /// bcrypt uses at most 72 bytes; the server refuses longer passwords.
    public static let maximumBytes = 72

    /// The fewest characters a password may have. Default 6, GoTrue's default.
    public var minimumLength: Int

    /// Rules with this minimum length.
    public init(minimumLength: Int = 6) {
        self.minimumLength = minimumLength
    }

    /// What is wrong with `password`, in the order to show; empty when it is acceptable.
    public func problems(in password: String) -> [PasswordProblem] {
        var problems: [PasswordProblem] = []
        if password.count < minimumLength { problems.append(.tooShort(minimum: minimumLength)) }
        if password.utf8.count > Self.maximumBytes { problems.append(.tooLong(maximumBytes: Self.maximumBytes)) }
        return problems
    }
}

/// One way a password breaks the ``PasswordRules``; ``AppFlowStrings/passwordProblem`` words it.
public enum PasswordProblem: Sendable, Hashable {
    /// Fewer characters than the minimum.
    case tooShort(minimum: Int)
    /// More bytes than bcrypt can use.
    case tooLong(maximumBytes: Int)
}
