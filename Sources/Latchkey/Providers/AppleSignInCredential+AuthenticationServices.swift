#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation

extension AppleSignInCredential {
    /// The ID token and name of a Sign in with Apple credential; `nil` when it carries no
    /// `identityToken`.
    public init?(_ credential: ASAuthorizationAppleIDCredential) {
        guard let data = credential.identityToken, let token = String(data: data, encoding: .utf8), !token.isEmpty else { return nil }
        self.init(identityToken: token, fullName: credential.fullName)
    }
}
#endif
