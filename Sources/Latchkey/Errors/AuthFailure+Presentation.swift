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
        /// Enter a code from the authenticator app (the session needs a second factor).
        case verifySecondFactor

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
            case .verifySecondFactor: "Enter Code"
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
        if let secondFactor = secondFactorPresentation { return secondFactor }
        if let passkey = passkeyPresentation { return passkey }
        if let authorizedApps = authorizedAppPresentation { return authorizedApps }
        return switch category {
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
        case .invalidInput where code == "captcha_failed":
            Presentation(
                title: "Verification Needed",
                message: "Please complete the verification again, then retry.",
                action: .retry)
        case .invalidInput where code == "weak_password" && detail == "pwned":
            // The password appears in a known data breach (GoTrue's reason `pwned`).
            Presentation(
                title: "Choose Another Password",
                message: "That password has appeared in a data breach. Choose one you haven't used elsewhere.",
                action: .editInput)
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

extension AuthFailure {
    /// Words for the multi-factor (authenticator app) failures, which share their categories
    /// with other failures but need their own sentences.
    var secondFactorPresentation: Presentation? {
        switch code {
        case "mfa_verification_failed":
            Presentation(
                title: "Incorrect Code",
                message: "That code isn't right. Enter the 6-digit code your authenticator app shows now.",
                action: .editInput)
        case "mfa_challenge_expired", "mfa_ip_address_mismatch":
            Presentation(
                title: "Code Expired",
                message: "That took too long. Enter the code your authenticator app shows now.",
                action: .retry)
        case "mfa_factor_not_found":
            Presentation(
                title: "Authenticator Not Found",
                message: "This authenticator app is no longer set up for your account.",
                action: .editInput)
        case "mfa_factor_name_conflict":
            Presentation(
                title: "Name Already Used",
                message: "You already have an authenticator app with this name. Choose another name.",
                action: .editInput)
        case "mfa_verified_factor_exists":
            Presentation(
                title: "Already Set Up",
                message: "This authenticator is already set up for your account.",
                action: .editInput)
        case "too_many_enrolled_mfa_factors":
            Presentation(
                title: "Too Many Authenticators",
                message: "You've set up as many authenticator apps as allowed. Remove one to add another.",
                action: .editInput)
        case "insufficient_aal":
            Presentation(
                title: "Verification Required",
                message: "Enter the code from your authenticator app to continue.",
                action: .verifySecondFactor)
        case "mfa_verification_rejected":
            Presentation(
                title: "Verification Refused",
                message: "Your code couldn't be accepted. Contact support if this keeps happening.",
                action: .contactSupport)
        case "mfa_totp_enroll_not_enabled", "mfa_totp_verify_not_enabled", "mfa_phone_enroll_not_enabled",
            "mfa_phone_verify_not_enabled", "mfa_webauthn_enroll_not_enabled", "mfa_webauthn_verify_not_enabled":
            Presentation(
                title: "Not Available",
                message: "Two-step verification with an authenticator app isn't available for this account.",
                action: .contactSupport)
        default:
            nil
        }
    }
}
