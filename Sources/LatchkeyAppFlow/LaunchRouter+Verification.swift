import Foundation
import Latchkey

extension LaunchRouter {
    /// Shows `verifyEmail` for `email`: a sign-up needs confirmation, or a sign-in was refused
    /// because the address is not confirmed yet. The password is kept in memory only until the
    /// verification ends, so "I've verified my email" can sign in without asking again.
    public func awaitVerification(email: String, password: String?) {
        pendingVerificationEmail = email
        pendingVerificationPassword = password
        verificationStatus = .idle
        inputs.awaitingVerification = true
    }

    /// "I've verified my email": reloads the user (signed in) or signs in with the pending
    /// credentials (not signed in yet), and moves on once the address is confirmed. While it is
    /// not, ``verificationStatus`` fails with `AuthFailure.Category.emailNotConfirmed`.
    public func confirmEmailVerified() async {
        guard !verificationStatus.isInProgress else { return }
        verificationStatus = .inProgress(.emailVerification)
        do {
            if inputs.authState.isSignedIn {
                let user = try await manager.account.refreshUser()
                await synchronize()
                guard user.isEmailConfirmed else { throw AuthFailure(.emailNotConfirmed) }
                endVerification()
            } else if let email = pendingVerificationEmail, let password = pendingVerificationPassword {
                try await manager.account.signIn(email: email, password: password)
                apply(await manager.state, authenticated: true)
            } else {
                // Nothing to sign in with (the password was never known): use the login form.
                endVerification()
                inputs.authScreen = .login
                return
            }
            verificationStatus = .succeeded(.emailVerification)
        } catch {
            verificationStatus = .failed(.emailVerification, AuthFailure(error))
        }
    }

    /// Confirms with the one-time code from the email (or the `token` of its link, e.g. from a
    /// universal link) and signs in.
    public func verifyEmail(code: String) async {
        guard !verificationStatus.isInProgress, let email = verificationEmail else { return }
        verificationStatus = .inProgress(.emailVerification)
        do {
            try await manager.email.verify(type: .signup, email: email, token: code.trimmingCharacters(in: .whitespacesAndNewlines))
            apply(await manager.state, authenticated: true)
            verificationStatus = .succeeded(.emailVerification)
        } catch {
            verificationStatus = .failed(.emailVerification, AuthFailure(error))
        }
    }

    /// Sends the confirmation email again.
    public func resendVerificationEmail() async {
        guard !verificationStatus.isInProgress, let email = verificationEmail else { return }
        verificationStatus = .inProgress(.resendConfirmation)
        do {
            try await manager.email.resendConfirmation(email: email)
            verificationStatus = .succeeded(.resendConfirmation)
        } catch {
            verificationStatus = .failed(.resendConfirmation, AuthFailure(error))
        }
    }

    /// Leaves the verify-email screen for the login form ("Use another account"). A signed-in
    /// user whose address is unconfirmed is signed out.
    public func cancelVerification() async {
        endVerification()
        inputs.authScreen = .login
        if inputs.authState.isSignedIn { await signOut() }
    }

    func endVerification() {
        pendingVerificationEmail = nil
        pendingVerificationPassword = nil
        verificationStatus = .idle
        inputs.awaitingVerification = false
    }
}
