import Foundation

/// Where and how ``SMTPMailer`` delivers: parsed from `smtp://USER:PASS@HOST:PORT`.
///
/// - `smtp://…` (port 587 by default) sends `STARTTLS` and refuses to go on when the server does
///   not offer it; `smtp://…?starttls=optional` goes on in plain text then (gomail's, hence
///   GoTrue's, behaviour). Credentials are never sent without TLS except to a loopback address.
/// - `smtps://…` (port 465 by default) speaks TLS from the first byte.
///
/// The password is kept out of every description, log line and error message.
public struct SMTPSettings: Sendable, Equatable, CustomStringConvertible {
    public enum Security: Sendable, Equatable {
        /// Plain connection upgraded with `STARTTLS`; `required: false` goes on without TLS when
        /// the server does not offer it.
        case startTLS(required: Bool)
        /// TLS from the first byte (`smtps://`).
        case implicitTLS
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: Secret?
    /// Longest wait for the TCP connection.
    public var connectTimeout: Duration = .seconds(10)
    /// Longest wait for each reply of the server (the TLS handshake included).
    public var replyTimeout: Duration = .seconds(30)

    /// A password that never prints.
    public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        public let value: String
        public init(_ value: String) { self.value = value }
        public var description: String { "<redacted>" }
        public var debugDescription: String { "<redacted>" }
        public var customMirror: Mirror { Mirror(self, children: []) }
    }

    public init(host: String, port: Int, security: Security, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password.map(Secret.init)
    }

    /// Parses an `smtp://` or `smtps://` URL. Errors never repeat the URL (it holds a password).
    public init(url text: String) throws(ConfigurationError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw ConfigurationError("--smtp-url must look like smtp://USER:PASSWORD@HOST:PORT (percent-encode special characters)")
        }
        let security: Security
        switch scheme {
        case "smtp": security = .startTLS(required: true)
        case "smtps": security = .implicitTLS
        default: throw ConfigurationError("--smtp-url must start with smtp:// (STARTTLS) or smtps:// (implicit TLS)")
        }
        guard var host = components.host, !host.isEmpty else { throw ConfigurationError("--smtp-url has no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? (security == .implicitTLS ? 465 : 587)
        guard (1...65535).contains(port) else { throw ConfigurationError("--smtp-url has a port outside 1-65535") }
        self.init(host: host, port: port, security: security, username: components.user, password: components.password)
        if username?.isEmpty == true { username = nil }
        if password != nil, username == nil { throw ConfigurationError("--smtp-url has a password but no user name") }
        for item in components.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("starttls", "optional") where scheme == "smtp": self.security = .startTLS(required: false)
            case ("starttls", "required") where scheme == "smtp": self.security = .startTLS(required: true)
            default:
                throw ConfigurationError(
                    "--smtp-url: unknown option '\(MailAddress.printable(item.name))' (only starttls=optional|required, with smtp://)")
            }
        }
    }

    /// `smtp://host:port (STARTTLS required)`, with neither user name nor password.
    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let mode =
            switch security {
            case .implicitTLS: "implicit TLS"
            case .startTLS(required: true): "STARTTLS required"
            case .startTLS(required: false): "STARTTLS optional"
            }
        return "\(security == .implicitTLS ? "smtps" : "smtp")://\(hostPart):\(port) (\(mode)\(username == nil ? "" : ", AUTH"))"
    }

    /// Whether `host` is a loopback address, where credentials may go without TLS.
    var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

/// The mail settings of `latchkey serve`: the command line wins over the environment, which may
/// use Latchkey's names or GoTrue's.
public enum MailEnvironment {
    /// The SMTP URL and the sender from, in order: the command line (`--smtp-url`,
    /// `--mail-from`), `LATCHKEY_SMTP_URL` / `LATCHKEY_MAIL_FROM`, then GoTrue's
    /// `GOTRUE_SMTP_HOST`, `_PORT` (587), `_USER`, `_PASS`, `_ADMIN_EMAIL`, `_SENDER_NAME`.
    /// GoTrue's settings map to `smtps://` on port 465 and to `smtp://…?starttls=optional`
    /// otherwise, as gomail (GoTrue's SMTP library) behaves.
    public static func resolve(
        smtpURL: String?, mailFrom: String?, environment: [String: String]
    ) -> (smtpURL: String?, mailFrom: String?) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let url = smtpURL ?? value("LATCHKEY_SMTP_URL") ?? goTrueURL(value)
        var from = mailFrom ?? value("LATCHKEY_MAIL_FROM")
        if from == nil, let admin = value("GOTRUE_SMTP_ADMIN_EMAIL") {
            if let name = value("GOTRUE_SMTP_SENDER_NAME") {
                let quoted = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                from = "\"\(quoted)\" <\(admin)>"
            } else {
                from = admin
            }
        }
        return (url, from)
    }

    private static func goTrueURL(_ value: (String) -> String?) -> String? {
        guard let host = value("GOTRUE_SMTP_HOST") else { return nil }
        let port = value("GOTRUE_SMTP_PORT").flatMap(Int.init) ?? 587
        var components = URLComponents()
        components.scheme = port == 465 ? "smtps" : "smtp"
        components.host = host.contains(":") ? "[\(host)]" : host
        components.port = port
        // URLComponents leaves ':' and '@' alone in these, which would end the user part early.
        let allowed = CharacterSet.urlUserAllowed.subtracting(CharacterSet(charactersIn: ":@/?#[]"))
        components.percentEncodedUser = value("GOTRUE_SMTP_USER")?.addingPercentEncoding(withAllowedCharacters: allowed)
        components.percentEncodedPassword = value("GOTRUE_SMTP_PASS")?.addingPercentEncoding(withAllowedCharacters: allowed)
        if port != 465 { components.queryItems = [URLQueryItem(name: "starttls", value: "optional")] }
        return components.string
    }
}
