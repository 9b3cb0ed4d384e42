import HTTPTypes

/// GoTrue's answers on the routes of what the server does not serve.
extension AuthError {
    static let samlDisabled = AuthError(.notFound, "saml_provider_disabled", "SAML 2.0 is disabled")
    /// GoTrue's answer on its SCIM routes while SCIM is disabled.
    static let scimDisabled = AuthError(.notFound, "feature_disabled", "SCIM server is disabled")
}
