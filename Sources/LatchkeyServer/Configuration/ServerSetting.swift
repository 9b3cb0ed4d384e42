import Foundation

/// One setting of `latchkey serve`, declared once: its command-line flag, the environment
/// variables it is read from, its help text, and how a value is parsed and stored in a
/// ``ServerConfiguration``. The default is the configuration's own (``ServerConfiguration``
/// `init(dataDirectory:)`); help texts show it from there.
///
/// ``all`` lists every setting (see `ServerSetting+Table.swift`); the command's options take
/// their names and help from it, ``resolve(_:commandLine:environment:)`` fills a
/// configuration from the command line and the environment in one pass, and validation
/// messages name a setting by its ``label``.
package struct ServerSetting: Sendable, Identifiable {
    /// How a setting appears on the command line.
    package enum Kind: Sendable, Equatable {
        /// `--name VALUE`.
        case value
        /// `--name VALUE`, repeatable; from the environment, a comma-separated list.
        case list
        /// `--name`, on when given; from the environment `true`/`false` (or `1`/`0`, `yes`/`no`, `on`/`off`).
        case flag
        /// `--name` / `--no-name`; from the environment `true`/`false`.
        case invertibleFlag
        /// No command-line option: the environment only (the JWT secret).
        case environmentOnly
    }

    /// A variable a setting is read from, and how GoTrue's value becomes Latchkey's.
    package struct Variable: Sendable, Equatable {
        package var name: String
        package var conversion: Conversion
        /// Further variables the conversion reads (GoTrue's SMTP port, user and password).
        package var alsoReads: [String] = []

        package init(_ name: String, _ conversion: Conversion = .none, alsoReads: [String] = []) {
            self.name = name
            self.conversion = conversion
            self.alsoReads = alsoReads
        }
    }

    /// How a GoTrue variable's value converts to the setting's text.
    package enum Conversion: Sendable, Equatable {
        /// Taken as it is.
        case none
        /// A Go boolean, as `true` or `false`.
        case boolean
        /// A whole number (GoTrue's ints, uints and float rates); GoTrue's `0` ("its default") is ignored.
        case positiveInteger
        /// A Go duration (`3600s`, `24h`, `1h30m`; a bare number is seconds) in whole seconds; `0` is ignored.
        case duration
        /// logrus' level names as swift-log's (`warn` → `warning`, `fatal`/`panic` → `critical`).
        case logLevel
        /// GoTrue's `GOTRUE_SMTP_*` as an `smtp://` or `smtps://` URL (see ``MailEnvironment``).
        case goTrueSMTPURL
        /// GoTrue's `GOTRUE_SMTP_ADMIN_EMAIL` and `GOTRUE_SMTP_SENDER_NAME` as a sender.
        case goTrueSender
    }

    /// A setting's value as given, before it is parsed.
    package enum Value: Sendable, Equatable {
        case text(String)
        case list([String])
        case flag(Bool)
    }

    /// The long option without dashes (`access-token-ttl`); for an environment-only setting,
    /// its first variable.
    package var id: String
    package var kind: Kind
    /// The variables it is read from, in order: Latchkey's (`LATCHKEY_` and the flag in upper
    /// snake case, then any further Latchkey name), then GoTrue's.
    package var variables: [Variable]
    /// The help text, without the default.
    package var help: String
    /// The placeholder in usage texts, when not the flag's own name.
    package var valueName: String?
    /// Another setting this one sets a second way (`database-url-file` for `database`): when
    /// either is given on the command line, neither is read from the environment.
    package var sameSettingAs: String?
    /// Whether the value is a secret (it is then never echoed in a message).
    package var isSecret: Bool
    /// Parses `value` into the configuration; `nil` for settings the command itself uses
    /// (the log level and format, the data directory, which the configuration is made with).
    let store: (@Sendable (_ value: Value, _ setting: ServerSetting, _ configuration: inout ServerConfiguration) throws(ConfigurationError) -> Void)?
    /// The default as help shows it, from a configuration with every default; `nil` when the
    /// help text says it.
    let defaultText: (@Sendable (ServerConfiguration) -> String?)?

    package init(
        _ id: String, kind: Kind = .value, variables: [Variable] = [], help: String, valueName: String? = nil, sameSettingAs: String? = nil,
        isSecret: Bool = false, defaultText: (@Sendable (ServerConfiguration) -> String?)? = nil,
        store: (@Sendable (_ value: Value, _ setting: ServerSetting, _ configuration: inout ServerConfiguration) throws(ConfigurationError) -> Void)?
    ) {
        self.id = id
        self.kind = kind
        let own = kind == .environmentOnly ? [] : [Variable(Self.latchkeyVariable(for: id))]
        self.variables = own + variables.filter { !own.contains($0) }
        self.help = help
        self.valueName = valueName
        self.sameSettingAs = sameSettingAs
        self.isSecret = isSecret
        self.defaultText = defaultText
        self.store = store
    }

    /// The long option (`access-token-ttl`), `nil` for an environment-only setting.
    package var flag: String? { kind == .environmentOnly ? nil : id }

    /// The names of every variable it is read from.
    package var variableNames: [String] { variables.map(\.name) }

    /// How messages name the setting: the flag and its variables,
    /// `--access-token-ttl (LATCHKEY_ACCESS_TOKEN_TTL, GOTRUE_JWT_EXP)`; an environment-only
    /// setting by its variables, `LATCHKEY_JWT_SECRET (GOTRUE_JWT_SECRET)`.
    package var label: String {
        guard let flag else {
            let others = variableNames.dropFirst()
            return (variableNames.first ?? id) + (others.isEmpty ? "" : " (\(others.joined(separator: ", ")))")
        }
        return "--\(flag) (\(variableNames.joined(separator: ", ")))"
    }

    /// The default as help shows it, from a configuration with every default; `nil` when the
    /// help text says it.
    package var defaultDescription: String? {
        defaultText?(ServerConfiguration(dataDirectory: URL(fileURLWithPath: ServerSetting.defaultDataDirectory)))
    }

    /// The help text with ``defaultDescription``.
    package var helpWithDefault: String {
        guard let text = defaultDescription else { return help }
        return "\(help) (default: \(text))"
    }

    /// `LATCHKEY_` and the option's name in upper snake case: `access-token-ttl` → `LATCHKEY_ACCESS_TOKEN_TTL`.
    package static func latchkeyVariable(for option: String) -> String {
        "LATCHKEY_" + option.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// A message about this setting: `<label> <text>`.
    package func error(_ text: String) -> ConfigurationError { ConfigurationError("\(label) \(text)") }
}

// MARK: - Resolution

extension ServerSetting {
    /// Where a setting's value came from.
    package enum Origin: Sendable, Equatable {
        case commandLine
        case environment(String)
    }

    /// The settings given on the command line or in the environment, each with its value and origin.
    package struct Resolution: Sendable {
        package var values: [String: (value: Value, origin: Origin)] = [:]

        /// The value of the setting `id`, if given.
        package subscript(_ id: String) -> Value? { values[id]?.value }

        /// The text of the setting `id`, if given.
        package func text(_ id: String) -> String? {
            if case .text(let text)? = self[id] { return text }
            return nil
        }

        /// The environment variables that supplied settings (names only), sorted.
        package var variables: [String] {
            values.values.compactMap { if case .environment(let name) = $0.origin { name } else { nil } }.sorted()
        }

        /// Stores every given value of `settings` in `configuration`, parsing it.
        package func apply(_ settings: [ServerSetting], to configuration: inout ServerConfiguration) throws(ConfigurationError) {
            for setting in settings {
                guard let store = setting.store, let value = self[setting.id] else { continue }
                try store(value, setting, &configuration)
            }
        }
    }

    /// The value of each of `settings`: the command line's, otherwise the first variable of the
    /// setting's ``variables`` that is set and not empty (Latchkey's names before GoTrue's).
    /// A setting given on the command line settles the settings it shares one value with
    /// (``sameSettingAs``), and the first of those found in the environment settles the others.
    package static func resolve(
        _ settings: [ServerSetting], commandLine: [String: Value], environment: [String: String]
    ) throws(ConfigurationError) -> Resolution {
        var resolution = Resolution()
        func group(_ setting: ServerSetting) -> String { setting.sameSettingAs ?? setting.id }
        var settled = Set<String>()
        for setting in settings {
            guard let value = commandLine[setting.id] else { continue }
            resolution.values[setting.id] = (value, .commandLine)
            settled.insert(group(setting))
        }
        for setting in settings where !settled.contains(group(setting)) {
            guard let (variable, value) = try setting.environmentValue(environment) else { continue }
            resolution.values[setting.id] = (value, .environment(variable))
            settled.insert(group(setting))
        }
        return resolution
    }

    /// The first of the setting's variables that gives a value, and that value.
    package func environmentValue(_ environment: [String: String]) throws(ConfigurationError) -> (String, Value)? {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        for variable in variables {
            guard let raw = value(variable.name) else { continue }
            guard let text = try variable.convert(raw, environment: environment) else { continue }
            switch kind {
            case .flag, .invertibleFlag:
                guard let on = Self.parseBool(text) else {
                    throw ConfigurationError("\(variable.name)=\(text): expected true or false (or 1 or 0)")
                }
                return (variable.name, .flag(on))
            case .list:
                return (variable.name, .list(Self.list(text)))
            case .value, .environmentOnly:
                return (variable.name, .text(text))
            }
        }
        return nil
    }

    /// `true` for 1, true, t, yes, y, on; `false` for 0, false, f, no, n, off (any case); else `nil`.
    package static func parseBool(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "1", "true", "t", "yes", "y", "on": true
        case "0", "false", "f", "no", "n", "off": false
        default: nil
        }
    }

    /// The entries of a comma-separated list, trimmed, empty ones dropped.
    package static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

extension ServerSetting.Variable {
    /// The setting's text for this variable's `value`; `nil` to ignore it (GoTrue's `0`).
    func convert(_ value: String, environment: [String: String]) throws(ConfigurationError) -> String? {
        switch conversion {
        case .none:
            return value
        case .boolean:
            guard let flag = ServerSetting.parseBool(value) else { throw ConfigurationError("\(name)=\(value): expected true or false") }
            return flag ? "true" : "false"
        case .positiveInteger:
            guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number >= 0, number.isFinite else {
                throw ConfigurationError("\(name)=\(value): expected a number")
            }
            return number == 0 ? nil : String(Int(number.rounded()))
        case .duration:
            guard let seconds = GoDuration.seconds(value) else {
                throw ConfigurationError("\(name)=\(value): expected a duration such as 3600s, 30m or 24h")
            }
            return seconds <= 0 ? nil : String(max(1, Int(seconds.rounded())))
        case .logLevel:
            switch value.lowercased() {
            case "warn": return "warning"
            case "fatal", "panic": return "critical"
            default: return value.lowercased()
            }
        case .goTrueSMTPURL:
            return MailEnvironment.resolve(smtpURL: nil, mailFrom: nil, environment: environment.filter { $0.key.hasPrefix("GOTRUE_SMTP_") }).smtpURL
        case .goTrueSender:
            return MailEnvironment.resolve(smtpURL: nil, mailFrom: nil, environment: environment.filter { $0.key.hasPrefix("GOTRUE_SMTP_") }).mailFrom
        }
    }
}

/// Go's `time.ParseDuration`, as GoTrue reads durations.
package enum GoDuration {
    /// Seconds in a Go duration (ns, us, µs, ms, s, m, h, decimals, one optional sign), or a
    /// bare number of seconds; `nil` when it is neither.
    package static func seconds(_ text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        if let seconds = Double(rest) { return seconds }
        var sign = 1.0
        if rest.first == "-" || rest.first == "+" {
            if rest.first == "-" { sign = -1 }
            rest = rest.dropFirst()
        }
        if rest == "0" { return 0 }
        // Longest unit first: "ms" before "m".
        let units: [(String, Double)] = [("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("μs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600)]
            .sorted { $0.0.count > $1.0.count }
        var total = 0.0
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            guard let unit = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest = rest.dropFirst(unit.0.count)
            total += value * unit.1
        }
        return sign * total
    }
}
