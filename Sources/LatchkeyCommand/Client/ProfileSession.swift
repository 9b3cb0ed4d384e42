import Foundation
import Latchkey

/// A profile opened for a command: its settings, its credential store, its backend and a
/// session manager over them.
struct ProfileSession: Sendable {
    let context: ClientContext
    let settings: ProfileSettings
    let credentials: ProfileCredentials
    let backend: GoTrueBackend
    let manager: SessionManager

    /// Opens the profile, or `nil` when it has never signed in.
    static func open(_ context: ClientContext) throws -> ProfileSession? {
        guard let settings = try context.settings() else { return nil }
        let credentials = context.storeInUse(settings)
        let backend = try context.backend(settings)
        return ProfileSession(
            context: context, settings: settings, credentials: credentials, backend: backend,
            manager: context.manager(backend: backend, credentials: credentials))
    }

    /// Opens the profile and restores its session: signed in (online or offline), or a
    /// ``ClientFailure`` saying why not.
    static func restore(_ context: ClientContext, progress label: String = "Checking your session…") async throws -> (ProfileSession, AuthState) {
        guard let opened = try open(context) else { throw ClientFailure.notSignedIn(profile: context.profile) }
        let state = try await context.terminal.progress(label) { await opened.manager.restore() }
        if case .signedOut(let reason) = state {
            throw ClientFailure(signedOut: reason, profile: context.profile)
        }
        return (opened, state)
    }

    /// `failure` in the command's words.
    func describe(_ failure: AuthFailure) -> ClientFailure {
        ClientFailure(failure, profile: context.profile, server: settings.server)
    }

    /// The user from the server, with a token valid at least 30 s. A definitive answer (session
    /// revoked, account deleted or disabled) ends the local session too, with the reason.
    ///
    /// It asks the backend directly rather than `SessionManager.refreshUser()`, which rewrites
    /// the stored session and could put back a refresh token another process has just rotated.
    func fetchUser() async throws -> User {
        let session: Session
        do {
            session = try await manager.session(minTTL: 30)
        } catch let failure as AuthFailure {
            throw await explain(failure)
        }
        do {
            return try await backend.user(accessToken: session.accessToken)
        } catch let error as BackendError {
            if let reason = error.definitiveSignOutReason {
                await manager.signOut(scope: .local)
                throw ClientFailure(signedOut: reason, profile: context.profile)
            }
            throw describe(AuthFailure(error))
        }
    }

    /// `failure` from `session(minTTL:)` in words: when the manager signed out on the way,
    /// the reason it signed out.
    func explain(_ failure: AuthFailure) async -> ClientFailure {
        if case .signedOut(let reason) = await manager.state, failure.category == .sessionRevoked || failure.category == .notSignedIn {
            return ClientFailure(signedOut: reason, profile: context.profile)
        }
        return describe(failure)
    }
}
