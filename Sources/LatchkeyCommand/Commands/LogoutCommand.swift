import ArgumentParser
import Foundation
import Latchkey

/// `latchkey logout`: ends the session on the server (best effort) and always on this computer.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Sign out: end the session on the server and remove it from this computer.",
        discussion: """
            The local credentials are always removed, and the exit code is 0 even when the server \
            cannot be reached (it says so). --scope global ends every session of the account; \
            --scope others ends the other sessions and keeps this one.
            """)

    /// `--scope`, as the library's ``SignOutScope``.
    enum Scope: String, CaseIterable, ExpressibleByArgument {
        case local, global, others

        var signOutScope: SignOutScope {
            switch self {
            case .local: .local
            case .global: .global
            case .others: .others
            }
        }
    }

    @Option(
        name: .customLong("scope"),
        help: ArgumentHelp("local (this session), global (every session of the account) or others (all but this one).", valueName: "scope"))
    var scope: Scope = .local

    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await client.run { context in
            guard let profile = try ProfileSession.open(context) else {
                context.terminal.message("Not signed in\(ProfileName.suffix(context.profile)); nothing to do.")
                return
            }
            let state = await profile.manager.restore()
            if scope == .others {
                try await signOutOthers(profile, state: state)
            } else {
                try await signOut(profile, state: state)
            }
        }
    }

    private func signOutOthers(_ profile: ProfileSession, state: AuthState) async throws {
        if case .signedOut(let reason) = state { throw ClientFailure(signedOut: reason, profile: profile.context.profile) }
        do {
            _ = try await profile.manager.session(minTTL: 30)
        } catch let failure as AuthFailure {
            throw await profile.explain(failure)
        }
        let report = try await profile.context.terminal.progress("Signing out your other sessions…") {
            await profile.manager.signOut(scope: .others)
        }
        switch report.server {
        case .succeeded, .alreadyEnded, .skipped:
            profile.context.terminal.output("Signed out of your other sessions; this one stays signed in.")
        case .failed(let failure):
            throw profile.describe(failure)
        }
    }

    private func signOut(_ profile: ProfileSession, state: AuthState) async throws {
        let context = profile.context
        // A valid access token lets the server end the session; offline, skip the attempt.
        if case .signedIn = state { _ = try? await profile.manager.session(minTTL: 10) }
        let report = try await context.terminal.progress("Signing out…") { await profile.manager.signOut(scope: scope.signOutScope) }
        if profile.credentials.kind == .file {
            // Nothing of the session is left: the sealed file is gone, and now its key too.
            try? FileManager.default.removeItem(at: context.profileDirectory.appendingPathComponent("credentials"))
        }
        var settings = profile.settings
        settings.signedInAt = nil
        try? settings.save(to: context.profileDirectory)

        if let storageError = report.storageError {
            throw ClientFailure(
                .other, "Could not remove the saved credentials from the \(profile.credentials.location).",
                hint: ClientFailure.storageHint(storageError))
        }
        guard state.isSignedIn else {
            context.terminal.message("Not signed in\(ProfileName.suffix(context.profile)); removed what was left.")
            return
        }
        let everywhere = scope == .global ? " everywhere" : ""
        switch report.server {
        case .succeeded:
            context.terminal.output("Signed out of \(profile.settings.server)\(everywhere).")
        case .alreadyEnded, .skipped:
            context.terminal.output("Signed out. The server had already ended this session.")
        case .failed(let failure):
            context.terminal.output("Signed out on this computer.")
            let why = failure.category == .network ? "could not be reached" : "did not confirm the sign-out"
            // What is true: the tokens are gone from here, but the server still counts the
            // session as live, and sessions do not expire on their own unless the server sets a
            // time-box (latchkey serve --session-timebox; Supabase's time-box setting).
            context.terminal.message("latchkey: the server \(why), so the session is still active there. Its tokens are deleted from this computer;")
            context.terminal.message(
                "  the server ends it when it is revoked, or when the server's session time-box passes if it sets one (sessions do not expire by default)."
            )
            context.terminal.message(
                "  To end it for sure, sign in again when the server is reachable and run 'latchkey logout --scope global\(ProfileName.flag(context.profile))'."
            )
        }
    }
}
