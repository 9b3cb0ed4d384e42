import ArgumentParser
import Latchkey

/// `latchkey token`: a fresh access token on stdout, for `curl -H "Authorization: Bearer $(latchkey token)"`.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a fresh access token on stdout, refreshing it silently when needed.",
        discussion: """
            Concurrent runs share one refresh (a lock in the profile directory), so a refresh \
            token is never spent twice. Offline, a still-valid token is printed; an expired one \
            fails with exit code 3 and the session is kept.
            """)

    @Option(
        name: .customLong("min-ttl"),
        help: ArgumentHelp(
            "Refresh when the token has fewer seconds left than this (capped at half its lifetime).", valueName: "seconds"))
    var minTTL: Double = 60

    @OptionGroup var client: ClientOptions

    func validate() throws {
        guard minTTL >= 0 else { throw ValidationError("--min-ttl must not be negative") }
    }

    func run() async throws {
        try await client.run { context in
            let (profile, _) = try await ProfileSession.restore(context, progress: "Refreshing your session…")
            do {
                let session = try await context.terminal.progress("Refreshing your session…") {
                    try await profile.manager.session(minTTL: minTTL)
                }
                context.terminal.output(session.accessToken)
            } catch let failure as AuthFailure {
                throw await profile.explain(failure)
            }
        }
    }
}
