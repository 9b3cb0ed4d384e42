import Foundation
import LatchkeyServer

/// `latchkey serve`'s settings on the command line, read against the settings table
/// (`ServerSetting.all`): the one place a setting's option is declared, so a new setting is one
/// row of the table and no edit here.
///
/// Each setting with a flag is an option: `--name VALUE` or `--name=VALUE` (a ``ServerSetting/Kind/value``),
/// repeatable for a ``ServerSetting/Kind/list``, `--name` for a ``ServerSetting/Kind/flag``,
/// `--name` / `--no-name` for an ``ServerSetting/Kind/invertibleFlag``. A value given twice is
/// the last one, as with any ArgumentParser option. Anything else (an unknown option, a
/// positional argument, a missing value, a value for a flag) is an error that names it.
struct SettingArguments {
    /// The settings read here: every one with a flag, except those the command declares itself.
    let settings: [ServerSetting]

    init(_ settings: [ServerSetting]) {
        self.settings = settings.filter { $0.flag != nil }
    }

    /// A command line that does not name settings correctly.
    struct Failure: Error, CustomStringConvertible, Equatable {
        var description: String
    }

    /// What `arguments` give, by setting id; a setting not given is absent.
    func read(_ arguments: [String]) throws(Failure) -> [String: ServerSetting.Value] {
        var byFlag: [String: ServerSetting] = [:]
        for setting in settings {
            guard let flag = setting.flag else { continue }
            byFlag[flag] = setting
        }
        var values: [String: ServerSetting.Value] = [:]
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                if argument == "--" { throw Failure(description: "latchkey serve takes no arguments after '--'") }
                throw Failure(description: "unexpected argument '\(argument)': settings are given as --name VALUE")
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let attached = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
            if let setting = byFlag[name] {
                switch setting.kind {
                case .value, .list:
                    let value: String
                    if let attached {
                        value = attached
                    } else if index < arguments.endIndex, !arguments[index].hasPrefix("--") {
                        value = arguments[index]
                        index += 1
                    } else {
                        throw Failure(description: "missing value for '--\(name) <\(Self.valueName(setting))>'")
                    }
                    if setting.kind == .list {
                        guard case .list(let earlier)? = values[setting.id] else {
                            values[setting.id] = .list([value])
                            continue
                        }
                        values[setting.id] = .list(earlier + [value])
                    } else {
                        values[setting.id] = .text(value)
                    }
                case .flag, .invertibleFlag:
                    guard attached == nil else { throw Failure(description: "'--\(name)' takes no value") }
                    values[setting.id] = .flag(true)
                case .environmentOnly:
                    break
                }
            } else if name.hasPrefix("no-"), let setting = byFlag[String(name.dropFirst(3))], setting.kind == .invertibleFlag {
                guard attached == nil else { throw Failure(description: "'--\(name)' takes no value") }
                values[setting.id] = .flag(false)
            } else {
                let suggestion = closest(to: name).map { "; did you mean '--\($0)'?" } ?? ""
                throw Failure(description: "unknown option '--\(name)'\(suggestion) (latchkey serve --help lists every setting)")
            }
        }
        return values
    }

    /// Every option name, `no-` forms included.
    var optionNames: [String] {
        settings.flatMap { setting -> [String] in
            guard let flag = setting.flag else { return [] }
            return setting.kind == .invertibleFlag ? [flag, "no-" + flag] : [flag]
        }
    }

    /// The option nearest to a misspelt `name` (at most a third of its letters apart), if any.
    func closest(to name: String) -> String? {
        let limit = max(2, name.count / 3)
        return optionNames.map { ($0, Self.distance(name, $0)) }.filter { $0.1 <= limit }.min { $0.1 < $1.1 }?.0
    }

    /// The Levenshtein distance between two strings, by character.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    // MARK: - Help

    /// The placeholder a setting's value is shown with: its `valueName`, else its flag.
    static func valueName(_ setting: ServerSetting) -> String { setting.valueName ?? setting.id }

    /// How help names a setting's option: `--port <port>`, `--redirect-url <url> ...`,
    /// `--autoconfirm`, `--mfa-totp-enroll/--no-mfa-totp-enroll`.
    static func usage(_ setting: ServerSetting) -> String {
        switch setting.kind {
        case .value: "--\(setting.id) <\(valueName(setting))>"
        case .list: "--\(setting.id) <\(valueName(setting))> ..."
        case .flag: "--\(setting.id)"
        case .invertibleFlag: "--\(setting.id)/--no-\(setting.id)"
        case .environmentOnly: setting.id
        }
    }

    /// A setting's help: its text with the default, and GoTrue's names for it (its `LATCHKEY_`
    /// name follows from the flag, as the command's discussion says).
    static func helpText(_ setting: ServerSetting) -> String {
        let goTrue = setting.variableNames.filter { !$0.hasPrefix("LATCHKEY_") }
        let names = goTrue.isEmpty ? "" : " GoTrue: \(goTrue.joined(separator: ", "))."
        return setting.helpWithDefault + names
    }

    /// Every setting's option and help, laid out as ArgumentParser lays out options (names
    /// from the second column, help from the 27th, wrapped to `columns`; a word too long for that column starts further left),
    /// for the command's help.
    func help(columns: Int = 80) -> String {
        let indent = 26
        let width = max(columns - 1, indent + 20)
        var lines: [String] = []
        for setting in settings {
            var name = "  " + Self.usage(setting)
            if name.count > width, let space = name.range(of: " <") {
                // An option and placeholder wider than the help: the placeholder on a line of its own.
                lines.append(String(name[..<space.lowerBound]))
                name = "    <" + name[space.upperBound...]
            }
            let words = Self.helpText(setting).split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            var line = name.count < indent - 1 ? name.padding(toLength: indent, withPad: " ", startingAt: 0) : name
            if name.count >= indent - 1 {
                lines.append(line)
                line = String(repeating: " ", count: indent)
            }
            var lineHasWords = false
            for word in words {
                if lineHasWords, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = String(repeating: " ", count: indent)
                    lineHasWords = false
                }
                if !lineHasWords, line.count + word.count > width {
                    // A word longer than the help column (a long GoTrue name) starts further left,
                    // so that the line fits and is not wrapped again.
                    line = String(repeating: " ", count: max(2, width - word.count))
                }
                line += (lineHasWords ? " " : "") + word
                lineHasWords = true
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
