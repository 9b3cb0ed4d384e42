import HTTPTypes

/// Sign-in with providers: ID tokens, linking, custom providers.
extension AuthError {
    /// An ID token whose form, issuer, key, signature or times are wrong (the reason is logged).
    static let badIDToken = oauth("invalid request", "Bad ID token")
    static let manualLinkingDisabled = AuthError(.notFound, "manual_linking_disabled", "Manual linking is disabled")
    /// A `custom:` provider named while custom providers are off (GoTrue's 400 `validation_failed`).
    static let customProvidersDisabled = validation("Custom OAuth providers are disabled")
}
