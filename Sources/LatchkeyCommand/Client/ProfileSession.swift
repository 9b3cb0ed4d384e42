import Foundation
import Latchkey

/// A profile opened for a command: its settings, its credential store and a session manager
/// over them and the profile's server.
struct ProfileSession: Sendable {
    let context: ClientContext
    let settings: ProfileSettings
    let credentials: ProfileCredentials
    let manager: SessionManager

    /// Opens the profile, or `nil` when it has never signed in.
    static func open(_ context: ClientContext) throws -> ProfileSession? {
        guard let settings = try context.settings() else { return nil }
        let credentials = context.storeInUse(settings)
        return ProfileSession(
            context: context, settings: settings, credentials: credentials,
            manager: context.manager(backend: try context.backend(settings), credentials: credentials))
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

    /// The user from the server, with a token valid at least 30 s, stored with the session. A
    /// definitive answer (session revoked, account deleted or disabled) ends the local session
    /// too, with the reason.
    func fetchUser() async throws -> User {
        do {
            return try await manager.account.refreshUser()
        } catch let failure as AuthFailure {
            throw await explain(failure)
        }
    }

    /// `failure` from the manager in words: when the manager signed out on the way, the reason
    /// it signed out.
    func explain(_ failure: AuthFailure) async -> ClientFailure {
        let endsSession = [.sessionRevoked, .notSignedIn, .accountDisabled].contains(failure.category)
        if case .signedOut(let reason) = await manager.state, endsSession {
            return ClientFailure(signedOut: reason, profile: context.profile)
        }
        return describe(failure)
    }
}
