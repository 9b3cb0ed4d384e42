import Foundation
import Logging

extension SessionManager {
    /// The credential-store key of the PKCE verifier of the flow in progress: an email link, or
    /// a sign-in or link in the browser. One flow at a time, as GoTrue clients keep it: a new
    /// flow replaces the verifier of an earlier one.
    nonisolated var pkceVerifierKey: String { configuration.storageKey + ".pkce-verifier" }

    /// A new PKCE pair whose verifier replaces any earlier one in the store, so that the flow
    /// survives the app being closed before the redirect comes back.
    nonisolated func startPKCEFlow() async throws -> PKCE {
        let pkce = PKCE()
        try await store.save(Data(pkce.verifier.utf8), key: pkceVerifierKey)
        return pkce
    }

    /// Trades `code` and the stored verifier for a session, spends the verifier, and signs in.
    /// - Throws: ``BackendError`` (`flow_state_not_found` when no flow is waiting for a code),
    ///   ``StorageError``.
    func exchangeCodeWithStoredVerifier(_ code: String) async throws -> Session {
        guard let stored = try await store.load(key: pkceVerifierKey), let verifier = String(data: stored, encoding: .utf8) else {
            throw BackendError.server(status: 404, code: "flow_state_not_found", message: "no sign-in is waiting for a code", retryAfter: nil)
        }
        let session = try await backend.exchangeCode(code, codeVerifier: verifier)
        try? await store.delete(key: pkceVerifierKey)
        return try await commitSignIn(session)
    }

    /// Signs in with what a redirect brought back: a code (traded with the stored verifier) or
    /// an implicit flow's tokens (the user fetched with them). An error redirect throws its
    /// failure; a URL with neither throws `invalidInput`.
    /// - Throws: ``AuthFailure``.
    func signIn(fromRedirect url: URL, operation: String) async throws -> Session {
        let redirect = ProviderRedirect(url)
        switch redirect {
        case .failure(let error, let code, let description):
            let failure = ProviderRedirect.authFailure(error: error, code: code, description: description)
            logger.info("the redirect carries an error", metadata: ["operation": "\(operation)", "failure": "\(failure)"])
            throw failure
        case .none:
            throw AuthFailure(.invalidInput, code: "validation_failed", detail: "the URL carries no code or session")
        case .code(let code):
            return try await AuthFailure.translating { try await exchangeCodeWithStoredVerifier(code) }
        case .tokens(let tokens):
            return try await AuthFailure.translating {
                let user = try await backend.user(accessToken: tokens.accessToken)
                let now = clock.now()
                let expiresIn = tokens.expiresIn ?? tokens.expiresAt.map { $0.timeIntervalSince(now) } ?? 3600
                let session = Session(
                    accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, tokenType: tokens.tokenType, expiresIn: expiresIn,
                    expiresAt: tokens.expiresAt ?? now.addingTimeInterval(expiresIn), user: user)
                return try await commitSignIn(session)
            }
        }
    }
}
