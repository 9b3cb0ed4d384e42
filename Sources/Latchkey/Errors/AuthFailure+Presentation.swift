import Foundation

extension AuthFailure {
    /// What a person should be offered next.
    public enum SuggestedAction: Sendable, Hashable {
        /// "Forgot Password?" — start a password reset.
        case resetPassword
        /// Try the same thing again now.
        case retry
        /// Wait, then try again; the interval is the server's hint when it gave one.
        case waitAndRetry(after: TimeInterval?)
        /// Send the confirmation email again.
        case resendVerification
        /// Sign in again.
        case signIn
        /// Nothing the user can do in the app.
        case contactSupport
        /// Correct the form.
        case editInput
        /// Sign in to the existing account instead.
        case signInInstead

        /// A short button label for the action.
        public var label: String {
            switch self {
            case .resetPassword: "Reset Password"
            case .retry: "Retry"
            case .waitAndRetry: "OK"
            case .resendVerification: "Resend Email"
            case .signIn: "Sign In"
            case .contactSupport: "Contact Support"
            case .editInput: "OK"
            case .signInInstead: "Sign In"
            }
        }
    }

    /// Words for an alert or an inline error: never a raw error string.
    public struct Presentation: Sendable, Hashable {
        /// A short title, e.g. "Incorrect Password".
        public let title: String
        /// A sentence saying what happened and what to do.
        public let message: String
        /// The action to offer.
        public let action: SuggestedAction

        /// Words of your own, e.g. translated: an app that localizes its errors maps each
        /// failure to a presentation of its own (`AppFlowStrings.failure` in `LatchkeyAppFlow`).
        public init(title: String, message: String, action: SuggestedAction) {
            self.title = title
            self.message = message
            self.action = action
        }
    }

    /// The user-facing title, message and suggested action for this failure.
    public var presentation: Presentation {
        switch category {
        case .invalidCredentials:
            Presentation(
                title: "Incorrect Password",
                message: "Incorrect email or password. Try 'Forgot Password?'",
                action: .resetPassword)
        case .emailNotConfirmed:
            Presentation(
                title: "Email Not Verified",
                message: "Please verify your email address. Check your inbox for the confirmation link.",
                action: .resendVerification)
        case .accountDisabled:
            Presentation(
                title: "Account Disabled",
                message: "Account disabled. Contact support",
                action: .contactSupport)
        case .rateLimited(let retryAfter):
            Presentation(
                title: "Too Many Attempts",
                message: "Too many login attempts. Please wait a few minutes and try again.",
                action: .waitAndRetry(after: retryAfter))
        case .network where code == "lock_unavailable":
            Presentation(
                title: "Sign-In Unavailable",
                message: "Your saved sign-in can't be renewed right now. Please try again.",
                action: .retry)
        case .network:
            Presentation(
                title: "Connection Issue",
                message: "Check your connection and retry",
                action: .retry)
        case .server:
            Presentation(
                title: "Service Unavailable",
                message: "Service temporarily unavailable. Please try again later.",
                action: .retry)
        case .permission:
            Presentation(
                title: "Permission Denied",
                message: "You don't have permission to do this. Contact support if you think this is a mistake.",
                action: .contactSupport)
        case .sessionRevoked:
            Presentation(
                title: "Signed Out",
                message: "Your session has ended. Please sign in again.",
                action: .signIn)
        case .notSignedIn:
            Presentation(
                title: "Not Signed In",
                message: "Please sign in to continue.",
                action: .signIn)
        case .storage(.locked), .storage(.authenticationFailed):
            Presentation(
                title: "Device Locked",
                message: "Your saved sign-in can't be read while the device is locked. Unlock it and try again.",
                action: .retry)
        case .storage:
            Presentation(
                title: "Secure Storage Problem",
                message: "Your saved sign-in couldn't be read. Please sign in again.",
                action: .signIn)
        case .invalidInput:
            Presentation(
                title: "Check Your Details",
                message: code == "weak_password"
                    ? "That password is too weak. Use a longer password with a mix of letters, numbers and symbols."
                    : "Some of the details you entered aren't valid. Check them and try again.",
                action: .editInput)
        case .accountExists:
            Presentation(
                title: "Account Exists",
                message: "An account with this email already exists. Sign in instead, or reset your password.",
                action: .signInInstead)
        case .unknown:
            Presentation(
                title: "Something Went Wrong",
                message: "Something went wrong. Please try again.",
                action: .retry)
        }
    }
}
