#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation

extension AppleSignInCredential {
    /// The ID token, name and authorization code of a Sign in with Apple credential; `nil`
    /// when it carries no `identityToken`. The code (`authorizationCode`, `Data?`, UTF-8
    /// encoded as Apple documents) is left out when absent or not UTF-8.
    public init?(_ credential: ASAuthorizationAppleIDCredential) {
        guard let data = credential.identityToken, let token = String(data: data, encoding: .utf8), !token.isEmpty else { return nil }
        let code = credential.authorizationCode.flatMap { String(data: $0, encoding: .utf8) }.flatMap { $0.isEmpty ? nil : $0 }
        self.init(identityToken: token, fullName: credential.fullName, authorizationCode: code)
    }
}
#endif
