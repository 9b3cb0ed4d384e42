import HTTPTypes

/// The OAuth server's answers, with GoTrue's codes and messages.
extension AuthError {
    /// GoTrue's answer on the OAuth server's routes while it is disabled.
    static let oauthServerDisabled = AuthError(.notFound, "feature_disabled", "OAuth server is disabled")
    static let oauthClientNotFound = AuthError(.notFound, "oauth_client_not_found", "OAuth client not found")
    static let oauthClientIDInvalid = validation("invalid client_id format")
    static let dynamicRegistrationDisabled = AuthError(
        .forbidden, "oauth_dynamic_client_registration_disabled", "Dynamic client registration is not enabled")
}
