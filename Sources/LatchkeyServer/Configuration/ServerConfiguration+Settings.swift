import Foundation
import Logging

extension ServerConfiguration {
    /// Every setting by name with its effective value, for the startup log: secrets (any
    /// setting whose name says secret, password or token, other than lifetimes) show as
    /// `<redacted>` or `<unset>`, and URLs lose their user and password (`postgres://<redacted>@db/auth`).
    ///
    /// Read off the configuration's stored properties, so settings added later are listed too.
    public func redactedSettings() -> Logger.Metadata {
        var settings: Logger.Metadata = [:]
        for child in Mirror(reflecting: self).children {
            guard let name = child.label else { continue }
            settings[name] = Self.redacted(name: name, value: child.value)
        }
        return settings
    }

    static func isSecretName(_ name: String) -> Bool {
        let lower = name.lowercased()
        if lower.hasSuffix("ttl") || lower.contains("retention") || lower.contains("interval") { return false }
        return lower.contains("secret") || lower.hasSuffix("password") || lower.hasSuffix("token") || lower.hasSuffix("key")
    }

    private static func redacted(name: String, value: Any) -> Logger.Metadata.Value {
        let unwrapped = unwrap(value)
        guard let unwrapped else { return "<unset>" }
        if isSecretName(name) { return "<redacted>" }
        switch unwrapped {
        case let text as String: return .string(redactingPassword(in: text))
        case let url as URL: return .string(url.isFileURL ? url.path : redactingPassword(in: url.absoluteString))
        case let list as [String]: return .array(list.map { .string(redactingPassword(in: $0)) })
        case let number as Double: return .string(number.rounded() == number ? String(Int(number)) : String(number))
        default:
            let text = String(describing: unwrapped)
            return .string(redactingPassword(in: text))
        }
    }

    /// The value inside an optional, `nil` for none.
    private static func unwrap(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrap($0.value) } ?? nil
    }

    /// `scheme://user:password@host…` with the user and password replaced (as the SMTP log
    /// line does); other text unchanged.
    static func redactingPassword(in text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = text[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        let authority = text[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return text }
        return String(text[..<authorityStart]) + "<redacted>" + String(text[at...])
    }
}
