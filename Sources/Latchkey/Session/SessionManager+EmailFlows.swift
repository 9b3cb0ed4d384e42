import Foundation
import Logging

extension SessionManager {
    /// The credential-store key of the PKCE verifier of the email flow in progress.
    var pkceVerifierKey: String { configuration.storageKey + ".pkce-verifier" }

    /// Mails a sign-in link and six-digit code to `email` ("magic link"). The account is
    /// created first when there is none and `createUser` is true.
    ///
    /// The user then either types the code (``verify(type:email:token:)`` with
    /// ``VerificationType/email``) or opens the link, which comes back to `redirectTo` with
    /// `?code=`; hand that URL to ``exchangeCode(from:)``. The answer does not say whether the
    /// address has an account.
    /// - Throws: ``AuthFailure`` (e.g. ``AuthFailure/Category/rateLimited(retryAfter:)``).
    public func sendSignInEmail(email: String, createUser: Bool = true, redirectTo: URL? = nil) async throws {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        logger.info("requesting a sign-in email", metadata: ["operation": "sign_in_email", "email": "\(LogRedaction.email(email))"])
        do {
            let pkce = try await startPKCEFlow()
            try await backend.sendSignInEmail(email: email, createUser: createUser, redirectTo: redirectTo?.absoluteString, codeChallenge: pkce.challenge)
        } catch {
            throw AuthFailure(error)
        }
    }

    /// Sends a password-reset email ("Forgot Password?") whose link comes back to `redirectTo`
    /// with `?code=` (hand it to ``exchangeCode(from:)``) and whose code signs in with
    /// ``verify(type:email:token:)`` and ``VerificationType/recovery``. Then set the new
    /// password with ``updateUser(_:)``.
    /// - Throws: ``AuthFailure``.
    public func recoverPassword(email: String, redirectTo: URL?) async throws {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            let pkce = try await startPKCEFlow()
            try await backend.recoverPassword(email: email, redirectTo: redirectTo?.absoluteString, codeChallenge: pkce.challenge)
        } catch {
            throw AuthFailure(error)
        }
    }

    /// Signs in with the link an email brought back to the app: a PKCE redirect
    /// (`…?code=…`), traded with the verifier kept since the email was requested. A redirect
    /// that carries an error (`error_code`, in the query or the fragment) throws it.
    /// - Throws: ``AuthFailure``; ``AuthFailure/Category/invalidInput`` when the URL carries no
    ///   code, when no email flow is waiting for one, or when the link was expired or used.
    @discardableResult
    public func exchangeCode(from url: URL) async throws -> Session {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var parameters: [String: String] = [:]
        for item in components?.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        if let fragment = components?.fragment, parameters["code"] == nil {
            var fragmentComponents = URLComponents()
            fragmentComponents.percentEncodedQuery = fragment
            for item in fragmentComponents.queryItems ?? [] where parameters[item.name] == nil { parameters[item.name] = item.value ?? "" }
        }
        if let errorCode = parameters["error_code"] ?? parameters["error"] {
            throw AuthFailure(BackendError.server(status: 403, code: errorCode, message: parameters["error_description"], retryAfter: nil))
        }
        guard let code = parameters["code"], !code.isEmpty else {
            throw AuthFailure(BackendError.server(status: 400, code: "validation_failed", message: "the URL carries no code", retryAfter: nil))
        }
        do {
            guard let stored = try await store.load(key: pkceVerifierKey), let verifier = String(data: stored, encoding: .utf8) else {
                throw BackendError.server(status: 404, code: "flow_state_not_found", message: "no email flow is waiting for a code", retryAfter: nil)
            }
            let session = try await backend.exchangeCode(code, codeVerifier: verifier)
            try? await store.delete(key: pkceVerifierKey)
            return try await commitSignIn(session)
        } catch {
            throw AuthFailure(error)
        }
    }

    /// Signs in a new anonymous user (when the server allows it). The user keeps its data and
    /// id when it later adds an email address and password with ``updateUser(_:)``; until the
    /// address is confirmed, ``User/isAnonymous`` stays true.
    /// - Throws: ``AuthFailure``.
    @discardableResult
    public func signInAnonymously(data: [String: JSONValue] = [:]) async throws -> Session {
        do {
            return try await commitSignIn(try await backend.signInAnonymously(data: data))
        } catch {
            throw AuthFailure(error)
        }
    }

    /// Mails the signed-in user a nonce to confirm a password change with: put it in
    /// ``UserUpdate/nonce`` beside the new password. Servers that require it answer a password
    /// change without one with ``AuthFailure/Category/permission`` (code
    /// `reauthentication_needed`).
    /// - Throws: ``AuthFailure``.
    public func reauthenticate() async throws {
        let session = try await self.session(minTTL: 30)
        do {
            try await backend.reauthenticate(accessToken: session.accessToken)
        } catch {
            throw AuthFailure(error)
        }
    }

    /// A new PKCE pair whose verifier replaces any earlier one in the store.
    private func startPKCEFlow() async throws -> PKCE {
        let pkce = PKCE()
        try await store.save(Data(pkce.verifier.utf8), key: pkceVerifierKey)
        return pkce
    }
}
