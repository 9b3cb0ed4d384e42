import ArgumentParser
import LatchkeyServer
import Testing

@testable import LatchkeyCommand

/// `latchkey serve`'s settings read from the command line against the settings table: every
/// form an option takes, and a clear error for every mistake, never a setting silently dropped.
@Suite("serve settings on the command line")
struct SettingArgumentsTests {
    let reader = ServeCommand.settingReader

    @Test("--name VALUE and --name=VALUE, repeated lists, flags, --no- flags; the last of a repeated value wins")
    func forms() throws {
        let values = try reader.read([
            "--port", "9999", "--site-url=https://app.example.com/?a=b", "--redirect-url", "https://a.example", "--redirect-url=https://b.example",
            "--autoconfirm", "--no-mfa-totp-enroll", "--mailer-secure-email-change", "--port", "9998", "--sms-template", "-1 is the code",
        ])
        #expect(values[ServerSetting.port.id] == .text("9998"))
        #expect(values[ServerSetting.siteURL.id] == .text("https://app.example.com/?a=b"), "only the first = splits")
        #expect(values[ServerSetting.redirectURL.id] == .list(["https://a.example", "https://b.example"]))
        #expect(values[ServerSetting.autoconfirm.id] == .flag(true))
        #expect(values[ServerSetting.mfaTOTPEnroll.id] == .flag(false))
        #expect(values[ServerSetting.mailerSecureEmailChange.id] == .flag(true))
        #expect(values[ServerSetting.smsTemplate.id] == .text("-1 is the code"), "a value may start with one dash")
        #expect(values[ServerSetting.disableSignup.id] == nil, "a flag not given is absent: the environment may set it")
        #expect(try reader.read([]).isEmpty)
    }

    @Test("an unknown option, a positional argument, a missing value or a value for a flag is an error naming it")
    func mistakes() {
        func failure(_ arguments: [String]) -> String? {
            do {
                _ = try reader.read(arguments)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(failure(["--prot", "1"])?.hasPrefix("unknown option '--prot'; did you mean '--port'?") == true)
        #expect(failure(["--no-autoconfirm"])?.hasPrefix("unknown option '--no-autoconfirm'") == true, "a plain flag has no --no- form")
        #expect(failure(["--completely-made-up"]) == "unknown option '--completely-made-up' (latchkey serve --help lists every setting)")
        #expect(failure(["9999"]) == "unexpected argument '9999': settings are given as --name VALUE")
        #expect(failure(["-p", "1"]) == "unexpected argument '-p': settings are given as --name VALUE")
        #expect(failure(["--", "--port", "1"]) == "latchkey serve takes no arguments after '--'")
        #expect(failure(["--port"]) == "missing value for '--port <port>'")
        #expect(failure(["--port", "--autoconfirm"]) == "missing value for '--port <port>'", "the next option is not taken as the value")
        #expect(failure(["--autoconfirm=false"]) == "'--autoconfirm' takes no value")
        #expect(failure(["--no-mfa-totp-enroll=1"]) == "'--no-mfa-totp-enroll' takes no value")
    }

    @Test("serve parses its own options between settings, and refuses a bad setting at parse time with the reader's message")
    func throughTheCommand() throws {
        let command = try ServeCommand.parse(["--port", "9999", "--data-dir", "/tmp/x", "--check", "--autoconfirm"])
        #expect(command.check)
        #expect(try command.commandLine[ServerSetting.dataDirectory.id] == .text("/tmp/x"))
        #expect(try command.commandLine[ServerSetting.port.id] == .text("9999"))
        #expect(try command.settings(environment: [:]).configuration.port == 9999)
        do {
            _ = try ServeCommand.parse(["--prot", "1"])
            Issue.record("a misspelt setting was accepted")
        } catch {
            #expect(ServeCommand.message(for: error).contains("did you mean '--port'?"))
        }
        do {
            _ = try ServeCommand.parse(["--jwt-keys", "[]", "--jwt-keys-file", "/k"])
            Issue.record("a setting given twice over was accepted")
        } catch {
            #expect(ServeCommand.message(for: error) == "--jwt-keys and --jwt-keys-file give the same setting: give one of them")
        }
    }

    @Test("help lays each setting out as ArgumentParser lays out options, wrapped to the width asked for")
    func help() {
        let help = reader.help(columns: 80)
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.count < 80 }, "no line wider than the columns: ArgumentParser would wrap it again")
        #expect(lines.contains { $0.hasPrefix("  --port <port>") })
        #expect(help.contains("  --mfa-totp-enroll/--no-mfa-totp-enroll"))
        #expect(help.contains("  --redirect-url <redirect-url> ..."))
        // Help starts at the 27th column, on the option's line when it fits, else on the next.
        // (a word too long for that column starts further left, so that ArgumentParser does not wrap it again).
        for line in lines where !line.hasPrefix("  --") && !line.hasPrefix("    <") {
            #expect(
                line.hasPrefix(String(repeating: " ", count: 26)) || (line.hasPrefix("  ") && !line.drop(while: { $0 == " " }).contains(" ")),
                "\(line)")
        }
        #expect(reader.help(columns: 200).split(separator: "\n").count < lines.count)
    }
}
