import ArgumentParser

/// The documented exit codes of the client commands (`latchkey help` and the README list them).
///
/// Scripts branch on these: 1 means "sign in again", 3 means "try again when the network is
/// back", so they are kept few and stable.
enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Done.
    case ok = 0
    /// Not signed in, the session ended (revoked, expired, account deleted), or the server
    /// refused the credentials (wrong password, email not confirmed, account disabled).
    case notSignedIn = 1
    /// The command line was wrong (unknown option, bad value) or the input was rejected
    /// (malformed email, weak password).
    case usage = 2
    /// The server could not be reached (offline, refused, timed out).
    case network = 3
    /// The server failed or refused for another reason (5xx, rate limit, account exists), the
    /// credential store failed, or anything else.
    case other = 4

    /// The `ExitCode` ArgumentParser exits with.
    var exitCode: ExitCode { ExitCode(rawValue) }

    /// One line per code, for `--help`.
    static let summary = """
        Exit codes: 0 ok; 1 not signed in, session ended or sign-in refused; 2 usage or rejected \
        input; 3 server unreachable; 4 server error or anything else.
        """
}
