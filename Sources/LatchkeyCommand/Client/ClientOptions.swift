import ArgumentParser
import Foundation

/// Options every client command takes: which profile, which credential store, how patient.
struct ClientOptions: ParsableArguments {
    @Option(
        name: .customLong("profile"),
        help: ArgumentHelp(
            "The account profile to use (default: $LATCHKEY_PROFILE or \"default\").", valueName: "name"))
    var profile: String?

    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "Where credentials are kept: auto (the desktop keyring when one answers, else an encrypted file), keyring or file. Other commands use the store the profile signed in with.",
            valueName: "auto|keyring|file"))
    var store: StoreOption?

    @Option(name: .customLong("timeout"), help: ArgumentHelp("Seconds to wait for the server.", valueName: "seconds"))
    var timeout: Double = 10

    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Log what happens on stderr (never tokens or passwords).")
    var verbose = false

    func validate() throws {
        if let profile, !ProfileName.isValid(profile) {
            throw ValidationError("--profile must be 1–64 letters, digits, '.', '_' or '-', not starting with '.'")
        }
        guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds") }
    }

    /// The profile name: `--profile`, else `LATCHKEY_PROFILE`, else `default`.
    func profileName(environment: [String: String]) throws -> String {
        if let profile { return profile }
        if let name = environment["LATCHKEY_PROFILE"], !name.isEmpty {
            guard ProfileName.isValid(name) else {
                throw ClientFailure.usage("LATCHKEY_PROFILE must be 1–64 letters, digits, '.', '_' or '-', not starting with '.'")
            }
            return name
        }
        return ProfileName.defaultName
    }
}

/// Options of `login` and `signup`: the server and the credentials.
struct AccountOptions: ParsableArguments {
    @Option(
        name: .customLong("server"),
        help: ArgumentHelp(
            "The auth server's URL, remembered for the profile (default: the remembered one, else $LATCHKEY_SERVER, else http://127.0.0.1:9999).",
            valueName: "url"))
    var server: String?

    @Option(
        name: .customLong("api-key"),
        help: ArgumentHelp(
            "The server's public anon key (Supabase projects need it), remembered for the profile.", valueName: "key"))
    var apiKey: String?

    @Option(name: .customLong("email"), help: "The account's email (default: the one the profile remembers; asked for on a terminal).")
    var email: String?

    @Flag(name: .customLong("password-stdin"), help: "Read the password from the first line of standard input (for scripts).")
    var passwordStdin = false
}
