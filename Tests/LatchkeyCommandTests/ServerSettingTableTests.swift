import ArgumentParser
import Foundation
import LatchkeyServer
import Testing

@testable import LatchkeyCommand

/// The settings table `latchkey serve` is declared from: every option has one entry, names are
/// unique, the documented GoTrue names are read, and help shows the configuration's defaults.
@Suite("serve settings table")
struct ServerSettingTableTests {
    /// The long options `serve` declares, from ArgumentParser's own description of the command.
    static func declaredOptions() throws -> [(name: String, isFlag: Bool)] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(ServeCommand._dumpHelp().utf8)) as? [String: Any])
        let arguments = try #require((object["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
        // `--check` is what serve does with the settings, not a setting.
        let builtIn: Set<String> = ["help", "version", "experimental-dump-help", "generate-completion-script", "check"]
        var options: [(String, Bool)] = []
        for argument in arguments {
            guard let kind = argument["kind"] as? String, kind == "option" || kind == "flag" else { continue }
            let names = (argument["names"] as? [[String: Any]] ?? []).filter { ($0["kind"] as? String) == "long" }.compactMap {
                $0["name"] as? String
            }
            options += names.filter { !builtIn.contains($0) }.map { ($0, kind == "flag") }
        }
        return options
    }

    @Test("every setting with a flag is a serve option that reaches commandLine; the options serve declares itself have a setting too")
    func everyOptionHasASetting() throws {
        let declared = try Self.declaredOptions()
        let settings = Dictionary(uniqueKeysWithValues: ServerSetting.all.map { ($0.id, $0) })
        for (name, _) in declared {
            let setting = settings[name] ?? settings[String(name.dropFirst(3))].flatMap { $0.kind == .invertibleFlag ? $0 : nil }
            #expect(setting != nil, "--\(name) has no entry in ServerSetting.all")
        }
        // The options ArgumentParser declares are the command's own; every other setting is read
        // from the table by `SettingArguments`.
        #expect(declared.map(\.name) == [ServerSetting.dataDirectory.id], "\(declared)")
        // Give every option at once: each one must land in `commandLine` under its own setting.
        var arguments: [String] = []
        for setting in ServeCommand.optionSettings where setting.sameSettingAs == nil {
            switch setting.kind {
            case .flag, .invertibleFlag: arguments.append("--\(setting.id)")
            case .value, .list: arguments += ["--\(setting.id)", "1"]
            case .environmentOnly: break
            }
        }
        let given = try ServeCommand.parse(arguments).commandLine
        for setting in ServeCommand.optionSettings where setting.sameSettingAs == nil {
            #expect(given[setting.id] != nil, "--\(setting.id) is not read into commandLine")
        }
        let files = try ServeCommand.parse(["--database-url-file", "/f", "--jwt-keys-file", "/g"]).commandLine
        #expect(files[ServerSetting.databaseURLFile.id] == .text("/f") && files[ServerSetting.jwtKeysFile.id] == .text("/g"))
    }

    @Test("no two settings share a flag or an environment variable")
    func uniqueNames() {
        let flags = ServerSetting.all.compactMap(\.flag)
        #expect(Set(flags).count == flags.count)
        let variables = ServerSetting.all.flatMap(\.variableNames)
        let duplicates = Dictionary(grouping: variables, by: { $0 }).filter { $0.value.count > 1 }.keys
        #expect(duplicates.isEmpty, "\(duplicates.sorted())")
        for setting in ServerSetting.all where setting.flag != nil {
            #expect(setting.variableNames.first == ServerSetting.latchkeyVariable(for: setting.id), "\(setting.id)")
        }
    }

    @Test("every GoTrue name the documentation mentions is read by a setting")
    func documentedGoTrueNames() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let read = Set(ServerSetting.all.flatMap { $0.variables.flatMap { [$0.name] + $0.alsoReads } })
        var documented = Set<String>()
        for file in ["README.md", "Documentation/Deploying.md", "Documentation/Server.md"] {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            let pattern = try NSRegularExpression(pattern: #"\b(GOTRUE_[A-Z0-9_]+|API_EXTERNAL_URL|DATABASE_URL)((/[A-Z_]+)*)"#)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let name = Range(match.range(at: 1), in: text).map({ String(text[$0]) }) else { continue }
                documented.insert(name)
                // GOTRUE_SMTP_HOST/PORT/USER: the further names share the prefix.
                if let rest = Range(match.range(at: 2), in: text).map({ text[$0] }), !rest.isEmpty {
                    let prefix = name[..<(name.lastIndex(of: "_") ?? name.endIndex)]
                    for part in rest.split(separator: "/") { documented.insert("\(prefix)_\(part)") }
                }
            }
        }
        #expect(documented.count > 25, "the table was found: \(documented.sorted())")
        #expect(documented.subtracting(read).isEmpty, "documented but read by no setting: \(documented.subtracting(read).sorted())")
    }

    @Test("the options table in Documentation/Server.md shows the same defaults as --help")
    func documentedDefaults() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Documentation/Server.md"), encoding: .utf8)
        var checked = 0
        for line in text.split(separator: "\n") where line.hasPrefix("| `--") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 3 else { continue }
            let flag = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")).replacingOccurrences(of: "--", with: "")
            guard let setting = ServerSetting.named(flag), let expected = setting.defaultDescription, setting.kind == .value || setting.kind == .list
            else { continue }
            // The default cell's code spans: `3600`, or `service_role`, `supabase_admin`.
            let spans = cells[2].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
                String($0.element)
            }
            #expect(spans.joined(separator: ", ") == expected, "--\(flag): the documentation says \(cells[2]), --help \(expected)")
            checked += 1
        }
        #expect(checked > 25, "the options table was found")
    }

    @Test("help shows the configuration's defaults, and serve --help lists every option")
    func help() throws {
        #expect(ServerSetting.port.helpWithDefault.hasSuffix("(default: \(ServerConfiguration.defaultPort))"))
        #expect(ServerSetting.accessTokenTTL.defaultDescription == "3600")
        #expect(ServerSetting.rateLimitSignIn.defaultDescription == String(RateLimitConfiguration.default.signInsPerIP.count))
        #expect(ServerSetting.jwtAdminRole.defaultDescription == "service_role, supabase_admin")
        #expect(ServerSetting.dataDirectory.defaultDescription == "./.latchkey")
        #expect(ServerSetting.siteURL.defaultDescription == nil, "the help text says it")
        let help = ServeCommand.helpMessage(columns: 200)
        for setting in ServeCommand.optionSettings { #expect(help.contains("--\(setting.id)"), "\(setting.id)") }
        #expect(help.contains("--no-mfa-totp-enroll"))
    }

    @Test("a setting's value from the command line or the environment is parsed alike, and messages name flag and variables")
    func parsing() throws {
        let message = { (arguments: [String], environment: [String: String]) -> String? in
            do {
                _ = try ServeCommand.parse(arguments).settings(environment: environment)
                return nil
            } catch let error as ConfigurationError {
                return error.description
            } catch {
                return "\(error)"
            }
        }
        #expect(message(["--port", "abc"], [:]) == "--port (LATCHKEY_PORT, GOTRUE_API_PORT, PORT) must be a whole number, not 'abc'")
        #expect(message([], ["LATCHKEY_PORT": "abc"]) == "--port (LATCHKEY_PORT, GOTRUE_API_PORT, PORT) must be a whole number, not 'abc'")
        #expect(message(["--rate-limit-email", "0"], [:])?.contains("--rate-limit-email (LATCHKEY_RATE_LIMIT_EMAIL) must be at least 1") == true)
        #expect(message(["--log-format", "xml"], [:]) == "--log-format (LATCHKEY_LOG_FORMAT) must be text or json")
        #expect(message([], ["GOTRUE_LOG_LEVEL": "loud"])?.hasPrefix("--log-level (LATCHKEY_LOG_LEVEL, GOTRUE_LOG_LEVEL) must be one of") == true)
        #expect(message(["--database-url-file", "/nonexistent/url"], [:])?.contains("cannot read a URL from it") == true)
        #expect(message([], ["LATCHKEY_JWT_KEYS_FILE": "/nonexistent/keys"])?.contains("cannot read JWT keys from it") == true)
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--database", "sqlite:///a", "--database-url-file", "/b"]) }

        var configuration = try ServeCommand.parse([]).settings(environment: ["GOTRUE_JWT_EXP": "0"]).configuration
        #expect(configuration.accessTokenTTL == ServerConfiguration.defaultAccessTokenTTL, "GoTrue's 0 is its default")
        configuration.accessTokenTTL = 0
        let error = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(error?.description == "--access-token-ttl (LATCHKEY_ACCESS_TOKEN_TTL, GOTRUE_JWT_EXP) must be at least 1 second")
    }

    @Test("the secret, SMTP settings and the log of sources come from one reading of the environment")
    func secretAndMail() throws {
        let secret = "a-secret-from-gotrue-of-at-least-32-bytes"
        let settings = try ServeCommand.parse(["--mail-from", "App <app@example.com>"]).settings(environment: [
            "GOTRUE_JWT_SECRET": secret, "GOTRUE_SMTP_HOST": "mail.example.com", "GOTRUE_SMTP_PORT": "465",
            "GOTRUE_SMTP_USER": "u", "GOTRUE_SMTP_PASS": "p", "GOTRUE_SMTP_ADMIN_EMAIL": "admin@example.com",
        ])
        #expect(settings.configuration.jwtSecret == secret)
        #expect(settings.configuration.smtpURL == "smtps://u:p@mail.example.com:465")
        #expect(settings.configuration.mailFrom == "App <app@example.com>", "the command line wins")
        #expect(settings.resolution.variables == ["GOTRUE_JWT_SECRET", "GOTRUE_SMTP_HOST"])
        let own = try ServeCommand.parse([]).settings(environment: [
            "LATCHKEY_JWT_SECRET": "own-secret-of-at-least-32-bytes-long!", "GOTRUE_JWT_SECRET": secret,
        ])
        #expect(own.configuration.jwtSecret == "own-secret-of-at-least-32-bytes-long!")
    }
}
