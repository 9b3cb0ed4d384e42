import Foundation

extension ServerConfiguration {
    /// Settings the server starts with, as GoTrue does, but that leave a feature failing at use
    /// or that clients handle badly: each names the setting and what will fail. The server logs
    /// them at start; `latchkey serve --check` prints them.
    ///
    /// - An SMS provider that is unknown or misses a credential: every SMS send fails with
    ///   GoTrue's 500 "Unable to get SMS provider" (test numbers still get their fixed codes).
    /// - Passkeys or WebAuthn factors on without a usable relying party: their ceremonies fail
    ///   (passkeys: 500 "Failed to initialize WebAuthn"; factors: 500 `unexpected_failure`).
    /// - Keycloak on without its URL, or an incomplete or unusable Sign in with Apple key: the
    ///   provider's sign-in fails (GoTrue's errors).
    /// - A hook on without its URI: each of its calls fails with 500 `unexpected_failure`.
    /// - An access-token lifetime under ``shortAccessTokenTTLWarning``.
    public func warnings() -> [String] {
        typealias S = ServerSetting
        var warnings: [String] = []
        if let problem = phone.providerProblem() {
            let names = problem.settings.map(\.label).joined(separator: ", ")
            warnings.append(
                "\(S.smsProvider.label) is '\(phone.provider ?? "")' but \(names) \(problem.settings.count == 1 ? "is" : "are") not usable (\(problem.reason)): "
                    + "every SMS (phone sign-up, sign-in, phone change, reauthentication, phone factors) fails with 500 \"Unable to get SMS provider\"; "
                    + "only the test numbers of \(S.smsTestOTP.label) get codes")
        }
        if passkeys.enabled || mfa.webAuthnEnrollEnabled || mfa.webAuthnVerifyEnabled, let problem = passkeys.relyingPartyProblem() {
            var features: [String] = []
            if passkeys.enabled { features.append("passkey registration and sign-in fail with 500 \"Failed to initialize WebAuthn\"") }
            if mfa.webAuthnEnrollEnabled || mfa.webAuthnVerifyEnabled {
                features.append("WebAuthn factor challenges and verifications fail with 500 unexpected_failure")
            }
            warnings.append("WebAuthn configuration is invalid: \(problem.description): " + features.joined(separator: "; "))
        }
        warnings += external.warnings()
        warnings += hooks.warnings()
        if accessTokenTTL < Self.shortAccessTokenTTLWarning {
            warnings.append(
                "short access-token lifetime: \(S.accessTokenTTL.label) is \(Int(accessTokenTTL)) s: Supabase clients treat a token with under 30 s left as expired "
                    + "and refresh before nearly every call")
        }
        return warnings
    }

    /// Whether passkey and WebAuthn factor ceremonies can run (the relying party is usable).
    var webAuthnUsable: Bool { passkeys.relyingPartyProblem() == nil }
}
