import Foundation
import LatchkeyWire

/// One part of an email (its subject, plain-text body or HTML body) in GoTrue's template syntax,
/// restricted to variable substitution: `{{ .Token }}`, `{{.ConfirmationURL}}`, and
/// `{{ .Data.name }}` for a key of the user's metadata. Go's trim markers (`{{- .Token -}}`)
/// remove the white space before or after the tag, as in Go.
///
/// Anything else between `{{` and `}}` — `if`, `range`, `with`, pipelines, comments, function
/// calls — is refused when the template is parsed, with the file and line, rather than printed
/// literally or silently dropped. Variables a kind of email does not have are refused the same
/// way.
struct MailTemplate: Sendable, Equatable {
    /// A variable a template may name.
    enum Variable: Sendable, Hashable {
        /// `{{ .Name }}`.
        case named(String)
        /// `{{ .Data.key }}`: a key of the user's metadata (`user_metadata`).
        case data(String)
    }

    enum Segment: Sendable, Equatable {
        case text(String)
        case variable(Variable)
    }

    let segments: [Segment]

    /// Parses `text`.
    ///
    /// - Parameters:
    ///   - source: how errors name the template (a file path, or `default confirmation.txt`).
    ///   - allowed: the `{{ .Name }}` variables this template may use (`Data` allows
    ///     `{{ .Data.key }}`).
    ///   - kind: how errors name the email (`confirmation`).
    static func parse(_ text: String, source: String, allowed: Set<String>, kind: String) throws(ConfigurationError) -> MailTemplate {
        var segments: [Segment] = []
        var literal = ""
        var rest = Substring(text)
        var line = 1
        var trimNextLeadingSpace = false
        while let open = rest.range(of: "{{") {
            var before = rest[..<open.lowerBound]
            if trimNextLeadingSpace { before = before.drop(while: \.isWhitespace) }
            literal += before
            line += rest[..<open.lowerBound].count(where: { $0 == "\n" })
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.range(of: "}}") else {
                throw ConfigurationError("\(source):\(line): \"{{\" is not closed by \"}}\"")
            }
            var tag = afterOpen[..<close.lowerBound]
            let tagLine = line
            line += tag.count(where: { $0 == "\n" })
            if tag.hasPrefix("-"), tag.dropFirst().first?.isWhitespace ?? false {
                tag = tag.dropFirst()
                while let last = literal.last, last.isWhitespace { literal.removeLast() }
            }
            trimNextLeadingSpace = false
            if tag.hasSuffix("-"), tag.dropLast().last?.isWhitespace ?? false {
                tag = tag.dropLast()
                trimNextLeadingSpace = true
            }
            let variable = try variable(in: tag.trimmingCharacters(in: .whitespacesAndNewlines), source: source, line: tagLine)
            let name =
                switch variable {
                case .named(let name): name
                case .data: "Data"
                }
            guard allowed.contains(name) else {
                throw ConfigurationError(
                    "\(source):\(tagLine): the \(kind) email has no {{ .\(name) }}; it has \(allowed.sorted().map { "{{ .\($0) }}" }.joined(separator: ", "))"
                )
            }
            if !literal.isEmpty { segments.append(.text(literal)) }
            literal = ""
            segments.append(.variable(variable))
            rest = afterOpen[close.upperBound...]
        }
        if trimNextLeadingSpace { rest = rest.drop(while: \.isWhitespace) }
        literal += rest
        if !literal.isEmpty { segments.append(.text(literal)) }
        return MailTemplate(segments: segments)
    }

    /// The variable a tag's content (without braces and trim markers) names.
    private static func variable(in tag: String, source: String, line: Int) throws(ConfigurationError) -> Variable {
        let unsupported = ConfigurationError(
            "\(source):\(line): {{ \(tag.prefix(60)) }} is not supported: mail templates only substitute variables, such as {{ .Token }} or {{ .Data.name }} (no if, range, with, pipelines or functions)"
        )
        guard tag.hasPrefix(".") else { throw unsupported }
        let path = tag.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
        guard path.allSatisfy(isIdentifier) else { throw unsupported }
        switch path.count {
        case 1:
            guard path[0] != "Data" else {
                throw ConfigurationError(
                    "\(source):\(line): {{ .Data }} alone prints nothing useful: name a key of the user's metadata, such as {{ .Data.name }}")
            }
            return .named(String(path[0]))
        case 2 where path[0] == "Data":
            return .data(String(path[1]))
        default:
            throw unsupported
        }
    }

    private static func isIdentifier(_ part: Substring) -> Bool {
        guard let first = part.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return part.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }

    /// The template with `values` substituted; HTML-escaped when `escapingHTML`. A variable
    /// with no value (a metadata key the user does not have) renders as nothing.
    func render(_ values: Values, escapingHTML: Bool) -> String {
        var output = ""
        for segment in segments {
            switch segment {
            case .text(let text): output += text
            case .variable(let variable):
                let value = values.value(of: variable)
                output += escapingHTML ? Self.escapeHTML(value) : value
            }
        }
        return output
    }

    /// `&`, `<`, `>`, `"` and `'` as character references (what Go's html/template does for text).
    static func escapeHTML(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&#34;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
        return output
    }

    /// What a template's variables stand for in one email.
    struct Values: Sendable {
        var named: [String: String]
        var data: [String: JSONValue]

        func value(of variable: Variable) -> String {
            switch variable {
            case .named(let name): named[name] ?? ""
            case .data(let key): data[key].map(Self.text) ?? ""
            }
        }

        /// A metadata value as text: strings as they are, whole numbers without a fraction,
        /// arrays and objects as JSON.
        static func text(_ value: JSONValue) -> String {
            switch value {
            case .null: return ""
            case .bool(let flag): return flag ? "true" : "false"
            case .string(let text): return text
            case .number(let number):
                if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
                return String(number)
            case .array, .object:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            }
        }
    }
}
