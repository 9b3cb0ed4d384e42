import ArgumentParser
import Foundation
import LatchkeyServer
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// `latchkey serve`: runs the auth server until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Latchkey auth server (GoTrue-compatible).",
        discussion: """
            Data lives in --data-dir: the SQLite database, the JWT secret generated on first start \
            (unless LATCHKEY_JWT_SECRET or GOTRUE_JWT_SECRET is set, at least 32 bytes), and outbox/ with one .eml file per email \
            unless --smtp-url (or LATCHKEY_SMTP_URL, or GoTrue's GOTRUE_SMTP_HOST/PORT/USER/PASS) sends them \
            over SMTP; --mail-from (LATCHKEY_MAIL_FROM, GOTRUE_SMTP_ADMIN_EMAIL and GOTRUE_SMTP_SENDER_NAME) \
            sets the sender.

            Every option can also come from the environment: --access-token-ttl from \
            LATCHKEY_ACCESS_TOKEN_TTL (LATCHKEY_ and the name in upper snake case; flags take true or false; \
            repeatable options a comma-separated list), and GoTrue's names where one exists (GOTRUE_SITE_URL, \
            API_EXTERNAL_URL, DATABASE_URL, GOTRUE_JWT_EXP, …; each option's help names them). The command line \
            wins over the environment, Latchkey's names over GoTrue's.

            SETTINGS:
            \(settingReader.help())
            """)

    // The settings come from the settings table (`ServerSetting.all`), read by
    // `SettingArguments`: the options declared here are the command's own.
    @OptionGroup var data: DataOptions
    @Flag(
        name: .customLong("check"),
        help: """
            Check the settings and exit without starting: a setting the server refuses is an error (non-zero exit); \
            the warnings a start would log (settings GoTrue starts with but that leave a feature failing) are \
            printed, and alone they exit 0.
            """)
    var check = false

    /// Every setting given on the command line, in order: `--name VALUE`, `--name=VALUE`,
    /// `--flag`, `--no-flag` (see ``SettingArguments``).
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("Settings, each as --name VALUE or --flag: see SETTINGS above.", valueName: "setting"))
    var settingArguments: [String] = []

    /// The settings read from the command line: every setting with a flag but the data
    /// directory, which `--data-dir` (``DataOptions``, shared with `keys` and `backup`) gives.
    static let settingReader = SettingArguments(ServerSetting.all.filter { $0.id != ServerSetting.dataDirectory.id })

    /// What the command line gave, by setting: the one place the settings are read.
    var commandLine: [String: ServerSetting.Value] {
        get throws(SettingArguments.Failure) {
            var values = try Self.settingReader.read(settingArguments)
            if let directory = data.dataDirectory { values[ServerSetting.dataDirectory.id] = .text(directory) }
            return values
        }
    }

    /// `--check`: the refusal a start would meet (an error, exit 1), else the warnings it would
    /// log, one a line on standard output, and exit 0.
    static func printCheck(_ settings: Settings) throws {
        let warnings: [String]
        do {
            warnings = try LatchkeyApplication.check(configuration: settings.configuration)
        } catch {
            let variables = settings.resolution.variables
            let origin = variables.isEmpty ? "" : "\n(settings from the environment: \(variables.joined(separator: ", ")))"
            throw ValidationError(error.namingSetting().description + origin)
        }
        for warning in warnings { print("warning: \(warning)") }
        print(
            warnings.isEmpty
                ? "latchkey serve --check: the settings are usable, with no warnings"
                : "latchkey serve --check: the settings are usable, with \(warnings.count) warning\(warnings.count == 1 ? "" : "s")")
    }

    /// The settings that are options of `serve`: every setting with a flag.
    static var optionSettings: [ServerSetting] { ServerSetting.all.filter { $0.flag != nil } }

    func validate() throws {
        let given: [String: ServerSetting.Value]
        do {
            given = try commandLine
        } catch {
            throw ValidationError(error.description)
        }
        for setting in Self.optionSettings {
            guard let other = setting.sameSettingAs, given[setting.id] != nil, given[other] != nil else { continue }
            throw ValidationError("--\(other) and --\(setting.id) give the same setting: give one of them")
        }
    }

    /// What the server runs with: the command line, else the environment (Latchkey's names, then
    /// GoTrue's), else the defaults; read once.
    struct Settings {
        var configuration: ServerConfiguration
        var logLevel: Logger.Level
        var logFormat: LogFormat
        /// Each given setting's value and where it came from.
        var resolution: ServerSetting.Resolution
    }

    func settings(environment: [String: String]) throws(ConfigurationError) -> Settings {
        let resolution = try ServerSetting.resolve(ServerSetting.all, commandLine: (try? commandLine) ?? [:], environment: environment)
        var configuration = ServerConfiguration(dataDirectory: DataOptions.url(resolution.text(ServerSetting.dataDirectory.id)))
        try resolution.apply(ServerSetting.all, to: &configuration)
        let level = resolution.text(ServerSetting.logLevel.id) ?? ServerSetting.logLevel.defaultDescription ?? ""
        guard let logLevel = Logger.Level(rawValue: level) else {
            throw ServerSetting.logLevel.error("must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let format = resolution.text(ServerSetting.logFormat.id) ?? ServerSetting.logFormat.defaultDescription ?? ""
        guard let logFormat = LogFormat(rawValue: format) else { throw ServerSetting.logFormat.error("must be text or json") }
        return Settings(configuration: configuration, logLevel: logLevel, logFormat: logFormat, resolution: resolution)
    }

    func run() async throws {
        // Everything the server writes (database, secret, outbox) is for its owner only.
        umask(0o077)
        let settings: Settings
        do {
            settings = try self.settings(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }
        if check {
            try Self.printCheck(settings)
            return
        }
        settings.logFormat.bootstrap()
        var logger = Logger(label: "latchkey")
        logger.logLevel = settings.logLevel
        let configuration = settings.configuration
        logEffectiveSettings(settings, logger: logger)
        do {
            if !configuration.rateLimits.enabled { logger.warning("rate limits are OFF (--no-rate-limits): use this for benchmarks only") }
            try await LatchkeyApplication.run(configuration: configuration, logger: logger)
        } catch let error as ConfigurationError {
            let variables = settings.resolution.variables
            let origin = variables.isEmpty ? "" : "\n(settings from the environment: \(variables.joined(separator: ", ")))"
            throw ValidationError(error.namingSetting().description + origin)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            // A port in use, a data directory that cannot be written, a database that cannot be
            // reached: one plain sentence naming the fix, without a usage text or raw error.
            throw ServeStartFailure.exit(error, configuration: configuration, logger: logger)
        }
    }
}
