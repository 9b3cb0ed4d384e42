import HTTPTypes

/// GoTrue's answers while email sign-in is off (`GOTRUE_EXTERNAL_EMAIL_ENABLED=false`), with its
/// codes and statuses, which differ by endpoint.
extension AuthError {
    /// `POST /signup` with an email address.
    static let emailSignupsDisabled = AuthError(.badRequest, "email_provider_disabled", "Email signups are disabled")
    /// The password grant with an email address, `/otp` and `/magiclink` with one (422).
    static let emailLoginsDisabled = AuthError(.unprocessableContent, "email_provider_disabled", "Email logins are disabled")
    /// `/recover`, and `/resend` with an email address (400).
    static let emailLinksDisabled = AuthError(.badRequest, "email_provider_disabled", "Email logins are disabled")
}
