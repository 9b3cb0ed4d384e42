import HTTPTypes

/// The answers about a PKCE flow state (``FlowState``) at `POST /token?grant_type=pkce`, as GoTrue
/// words them.
extension AuthError {
    static let flowStateNotFound = AuthError(.notFound, "flow_state_not_found", "invalid flow state, no valid flow state found")
    static let flowStateExpired = AuthError(.unprocessableContent, "flow_state_expired", "invalid flow state, flow state has expired")
    static let badCodeVerifier = AuthError(.badRequest, "bad_code_verifier", "code challenge does not match previously saved code verifier")
}
