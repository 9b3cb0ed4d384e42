import ArgumentParser
import Foundation

/// Every option of `serve` (and of `keys` and `backup`) also from the environment: `--name`
/// ↔ `LATCHKEY_NAME` (upper snake case), and GoTrue's names where an equivalent exists, so a
/// self-hosted GoTrue `.env` mostly just works.
///
/// Before parsing, for each option the command declares that the command line does not give,
/// `--name value` is appended from the environment. The options are read from the command's
/// own ArgumentParser definition (the `--experimental-dump-help` description), so an option
/// added to a command gets its variable with no further code.
///
/// Order, first found wins: the command line, `LATCHKEY_*`, GoTrue's `GOTRUE_*`, GoTrue's
/// unprefixed names (`API_EXTERNAL_URL`, `DATABASE_URL`, `PORT`). Flags take
/// true/false/1/0/yes/no/on/off; repeatable options take a comma-separated list.
enum EnvironmentArguments {
    /// The commands whose options come from the environment.
    static let commands: [any ParsableCommand.Type] = [ServeCommand.self, KeysCommand.self, BackupCommand.self]

    /// What the environment added: the arguments to parse and the variables used (names only).
    struct Expansion: Equatable {
        var arguments: [String]
        var variables: [String]
    }

    /// An option or flag as ArgumentParser describes it.
    struct Definition: Equatable {
        var name: String
        var isFlag: Bool
        var isRepeating: Bool
    }

    /// `arguments` (without the executable) with the environment's options appended, when the
    /// first argument names one of ``commands``.
    static func expand(_ arguments: [String], environment: [String: String]) throws -> Expansion {
        guard let name = arguments.first,
            let command = commands.first(where: { $0.configuration.commandName == name })
        else { return Expansion(arguments: arguments, variables: []) }
        // A subcommand (`keys generate`) reads nothing from the environment.
        if arguments.count > 1, command.configuration.subcommands.contains(where: { $0.configuration.commandName == arguments[1] }) {
            return Expansion(arguments: arguments, variables: [])
        }
        return try expand(arguments, definitions: definitions(of: command), environment: environment)
    }

    static func expand(_ arguments: [String], definitions: [Definition], environment: [String: String]) throws -> Expansion {
        let given = givenNames(arguments)
        let longNames = Set(definitions.map(\.name))
        var added: [String] = []
        var variables: [String] = []
        // Options that set one setting two ways: once one is given, the others are not read.
        var settled = Set(sameSetting.filter { !given.isDisjoint(with: $0) }.joined())
        for definition in definitions where !given.contains(definition.name) && !settled.contains(definition.name) {
            // An inverted flag (`--x` / `--no-x`) is one setting: its variable is LATCHKEY_X.
            if definition.isFlag, definition.name.hasPrefix("no-"), longNames.contains(String(definition.name.dropFirst(3))) { continue }
            if definition.isFlag, given.contains("no-" + definition.name) { continue }
            guard let (variable, value) = try lookUp(definition.name, environment: environment, available: longNames) else { continue }
            variables.append(variable)
            for group in sameSetting where group.contains(definition.name) { settled.formUnion(group) }
            if definition.isFlag {
                guard let on = parseBool(value) else {
                    throw ValidationError("\(variable)=\(value): expected true or false (or 1 or 0)")
                }
                if on {
                    added.append("--" + definition.name)
                } else if longNames.contains("no-" + definition.name) {
                    added.append("--no-" + definition.name)
                }
            } else if definition.isRepeating {
                for item in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
                    added += ["--" + definition.name, item]
                }
            } else {
                added += ["--" + definition.name, value]
            }
        }
        guard !added.isEmpty else { return Expansion(arguments: arguments, variables: variables) }
        // Options go before a `--` terminator, which ends option parsing.
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        return Expansion(arguments: Array(arguments[..<end]) + added + Array(arguments[end...]), variables: variables)
    }

    /// `LATCHKEY_` and the option's name in upper snake case: `access-token-ttl` → `LATCHKEY_ACCESS_TOKEN_TTL`.
    static func variable(for option: String) -> String {
        "LATCHKEY_" + option.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The variable and value that set `option`, LATCHKEY_ before GoTrue's names; empty values
    /// count as unset.
    private static func lookUp(_ option: String, environment: [String: String], available: Set<String>) throws -> (String, String)? {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let own = variable(for: option)
        if let found = value(own) { return (own, found) }
        for alias in aliases where alias.option == option {
            if let found = value(alias.variable) { return (alias.variable, found) }
        }
        for mapping in GoTrueEnvironment.mappings where mapping.option == option {
            guard let raw = value(mapping.variable) else { continue }
            if let converted = try mapping.convert(raw, mapping.variable) { return (mapping.variable, converted) }
        }
        return nil
    }

    /// Options that are one setting: a database URL given directly or in a file.
    static let sameSetting: [Set<String>] = [["database", "database-url-file"], ["jwt-keys", "jwt-keys-file"]]

    /// Further Latchkey names for an option.
    static let aliases: [(variable: String, option: String)] = [("LATCHKEY_DATABASE_URL", "database")]

    static func parseBool(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "1", "true", "t", "yes", "y", "on": true
        case "0", "false", "f", "no", "n", "off": false
        default: nil
        }
    }

    /// The long option names the command line gives (`--name value`, `--name=value`), up to `--`.
    static func givenNames(_ arguments: [String]) -> Set<String> {
        var names = Set<String>()
        for argument in arguments {
            if argument == "--" { break }
            guard argument.hasPrefix("--") else { continue }
            names.insert(String(argument.dropFirst(2).prefix { $0 != "=" }))
        }
        return names
    }

    /// The options and flags of `command`, from ArgumentParser's own description of it.
    static func definitions(of command: any ParsableCommand.Type) -> [Definition] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(command._dumpHelp().utf8)) as? [String: Any],
            let description = object["command"] as? [String: Any],
            let arguments = description["arguments"] as? [[String: Any]]
        else { return [] }
        let builtIn: Set<String> = ["help", "version", "experimental-dump-help", "generate-completion-script"]
        var definitions: [Definition] = []
        for argument in arguments {
            guard let kind = argument["kind"] as? String, kind == "option" || kind == "flag" else { continue }
            let names = (argument["names"] as? [[String: Any]] ?? []).filter { ($0["kind"] as? String) == "long" }.compactMap { $0["name"] as? String }
            for name in names where !builtIn.contains(name) {
                definitions.append(Definition(name: name, isFlag: kind == "flag", isRepeating: argument["isRepeating"] as? Bool ?? false))
            }
        }
        return definitions
    }
}

/// GoTrue's environment names (`internal/conf/configuration.go`, read by envconfig with the
/// prefix `GOTRUE_`; fields with their own name are also read unprefixed) that have a Latchkey
/// equivalent, and how their values convert. GoTrue's SMTP names are read by `MailEnvironment`
/// and its JWT secret by `DataOptions`.
enum GoTrueEnvironment {
    struct Mapping: Sendable {
        var variable: String
        var option: String
        /// The option's value, `nil` to ignore the variable (GoTrue's 0 meaning "its default").
        var convert: @Sendable (_ value: String, _ variable: String) throws -> String?
    }

    static let mappings: [Mapping] = [
        Mapping(variable: "GOTRUE_API_HOST", option: "host", convert: text),
        Mapping(variable: "GOTRUE_API_PORT", option: "port", convert: text),
        Mapping(variable: "PORT", option: "port", convert: text),
        Mapping(variable: "GOTRUE_API_EXTERNAL_URL", option: "external-url", convert: text),
        Mapping(variable: "API_EXTERNAL_URL", option: "external-url", convert: text),
        Mapping(variable: "GOTRUE_DB_DATABASE_URL", option: "database", convert: text),
        Mapping(variable: "DATABASE_URL", option: "database", convert: text),
        Mapping(variable: "GOTRUE_DB_MAX_POOL_SIZE", option: "database-pool-size", convert: positiveInteger),
        Mapping(variable: "GOTRUE_SITE_URL", option: "site-url", convert: text),
        Mapping(variable: "GOTRUE_URI_ALLOW_LIST", option: "redirect-url", convert: text),
        Mapping(variable: "GOTRUE_JWT_EXP", option: "access-token-ttl", convert: positiveInteger),
        Mapping(variable: "GOTRUE_JWT_ADMIN_ROLES", option: "jwt-admin-role", convert: text),
        Mapping(variable: "GOTRUE_JWT_KEYS", option: "jwt-keys", convert: text),
        Mapping(variable: "GOTRUE_DISABLE_SIGNUP", option: "disable-signup", convert: text),
        Mapping(variable: "GOTRUE_MAILER_AUTOCONFIRM", option: "autoconfirm", convert: text),
        Mapping(variable: "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED", option: "enable-anonymous-users", convert: text),
        Mapping(variable: "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", option: "secure-password-change", convert: text),
        Mapping(variable: "GOTRUE_MAILER_OTP_EXP", option: "email-code-ttl", convert: positiveInteger),
        Mapping(variable: "GOTRUE_PASSWORD_MIN_LENGTH", option: "password-min-length", convert: positiveInteger),
        Mapping(variable: "GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL", option: "refresh-reuse-interval", convert: text),
        Mapping(variable: "GOTRUE_SESSIONS_TIMEBOX", option: "session-timebox", convert: duration),
        Mapping(variable: "GOTRUE_SESSIONS_INACTIVITY_TIMEOUT", option: "session-inactivity-timeout", convert: duration),
        Mapping(variable: "GOTRUE_CORS_ALLOWED_HEADERS", option: "cors-allowed-headers", convert: text),
        Mapping(variable: "GOTRUE_RATE_LIMIT_VERIFY", option: "rate-limit-verify", convert: positiveInteger),
        Mapping(variable: "GOTRUE_LOG_LEVEL", option: "log-level", convert: logLevel),
        Mapping(variable: "GOTRUE_METRICS_ENABLED", option: "metrics-enabled", convert: boolean),
        Mapping(variable: "GOTRUE_MFA_MAX_ENROLLED_FACTORS", option: "mfa-max-enrolled-factors", convert: positiveInteger),
        Mapping(variable: "GOTRUE_MFA_MAX_VERIFIED_FACTORS", option: "mfa-max-verified-factors", convert: positiveInteger),
        Mapping(variable: "GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION", option: "mfa-challenge-expiry", convert: positiveInteger),
        Mapping(variable: "GOTRUE_MFA_FACTOR_EXPIRY_DURATION", option: "mfa-factor-expiry", convert: duration),
        Mapping(variable: "GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY", option: "rate-limit-mfa", convert: positiveInteger),
        Mapping(variable: "GOTRUE_MFA_TOTP_ENROLL_ENABLED", option: "mfa-totp-enroll", convert: text),
        Mapping(variable: "GOTRUE_MFA_TOTP_VERIFY_ENABLED", option: "mfa-totp-verify", convert: text),
    ]

    static let text: @Sendable (String, String) throws -> String? = { value, _ in value }

    /// A Go boolean (`true`, `1`, `false`, `0`, …) as `true` or `false`.
    static let boolean: @Sendable (String, String) throws -> String? = { value, variable in
        guard let flag = EnvironmentArguments.parseBool(value) else { throw ValidationError("\(variable)=\(value): expected true or false") }
        return flag ? "true" : "false"
    }

    /// A whole number (GoTrue's ints, uints and float rates); 0 means GoTrue's default, so it is ignored.
    static let positiveInteger: @Sendable (String, String) throws -> String? = { value, variable in
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number >= 0, number.isFinite else {
            throw ValidationError("\(variable)=\(value): expected a number")
        }
        return number == 0 ? nil : String(Int(number.rounded()))
    }

    /// A Go duration (`3600s`, `24h`, `1h30m`; a bare number counts as seconds) in whole
    /// seconds; 0 means unset, as in GoTrue.
    static let duration: @Sendable (String, String) throws -> String? = { value, variable in
        guard let seconds = goDuration(value) else {
            throw ValidationError("\(variable)=\(value): expected a duration such as 3600s, 30m or 24h")
        }
        return seconds <= 0 ? nil : String(max(1, Int(seconds.rounded())))
    }

    /// logrus' level names to swift-log's.
    static let logLevel: @Sendable (String, String) throws -> String? = { value, _ in
        switch value.lowercased() {
        case "warn": "warning"
        case "fatal", "panic": "critical"
        default: value.lowercased()
        }
    }

    /// Seconds in a Go duration (`time.ParseDuration`: ns, us, µs, ms, s, m, h, decimals, one
    /// optional sign), or a bare number of seconds; `nil` when it is neither.
    static func goDuration(_ text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        if let seconds = Double(rest) { return seconds }
        var sign = 1.0
        if rest.first == "-" || rest.first == "+" {
            if rest.first == "-" { sign = -1 }
            rest = rest.dropFirst()
        }
        if rest == "0" { return 0 }
        let units: [(String, Double)] = [("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("μs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600)]
        var total = 0.0
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            // Longest unit first: "ms" before "m".
            guard let unit = units.sorted(by: { $0.0.count > $1.0.count }).first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest = rest.dropFirst(unit.0.count)
            total += value * unit.1
        }
        return sign * total
    }
}
