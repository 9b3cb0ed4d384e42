import Foundation

extension AuthFailure {
    /// The failure a ``PasskeyAuthenticator`` error stands for (``PasskeyAuthenticatorError/cancelled``
    /// is not one: the callers answer it with a `cancelled` result before getting here).
    init(passkeyAuthenticator error: any Error) {
        switch error {
        case PasskeyAuthenticatorError.noCredentials:
            self.init(.invalidCredentials, code: "no_passkey")
        case PasskeyAuthenticatorError.credentialExcluded:
            // The server's own code for the same situation, so an app handles one.
            self.init(.invalidInput, code: "webauthn_credential_exists")
        case PasskeyAuthenticatorError.failed(let reason):
            self.init(.unknown, code: "passkey_authenticator_failed", detail: reason)
        case PasskeyAuthenticatorError.cancelled:
            self.init(.network, code: "cancelled")
        default:
            self.init(error)
        }
    }

    /// The category of the server's passkey error codes, `nil` for other codes.
    static func passkeyCategory(code: String?) -> Category? {
        switch code {
        case "webauthn_verification_failed", "no_passkey": .invalidCredentials
        case "webauthn_challenge_expired", "webauthn_challenge_not_found", "webauthn_credential_exists": .invalidInput
        case "passkey_disabled", "too_many_passkeys": .permission
        default: nil
        }
    }

    /// Words for the passkey failures, which share their categories with other failures but
    /// need their own sentences.
    var passkeyPresentation: Presentation? {
        switch code {
        case "webauthn_challenge_expired", "webauthn_challenge_not_found":
            Presentation(title: "Took Too Long", message: "That took too long. Please try again.", action: .retry)
        case "webauthn_verification_failed":
            Presentation(
                title: "Passkey Not Accepted",
                message: "This passkey couldn't be verified. Try again, or sign in another way.",
                action: .retry)
        case "no_passkey":
            Presentation(
                title: "No Passkey Found",
                message: "There's no passkey for this account on this device. Sign in another way.",
                action: .editInput)
        case "too_many_passkeys":
            Presentation(
                title: "Too Many Passkeys",
                message: "You've added as many passkeys as allowed. Remove one to add another.",
                action: .editInput)
        case "webauthn_credential_exists":
            Presentation(
                title: "Passkey Already Added",
                message: "This device already has a passkey for your account.",
                action: .editInput)
        case "passkey_disabled":
            Presentation(
                title: "Passkeys Unavailable",
                message: "Passkeys aren't available for this account. Sign in another way.",
                action: .contactSupport)
        case "passkey_authenticator_failed", "passkey_authenticator_unavailable":
            Presentation(
                title: "Passkey Unavailable",
                message: "Your passkey can't be used right now. Please try again.",
                action: .retry)
        default:
            nil
        }
    }
}
