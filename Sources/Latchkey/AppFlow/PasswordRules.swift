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

/// One way a password breaks the ``PasswordRules``.
public enum PasswordProblem: Sendable, Hashable {
    /// Fewer characters than the minimum.
    case tooShort(minimum: Int)
    /// More bytes than bcrypt can use.
    case tooLong(maximumBytes: Int)

    /// The sentence to show under the field.
    public var message: String {
        switch self {
        case .tooShort(let minimum): "Use at least \(minimum) characters."
        case .tooLong: "That password is too long. Use a shorter one."
        }
    }
}
