import Foundation
import LatchkeyWire

/// The subject, plain-text body and HTML body of every email the server sends, in GoTrue's
/// template syntax (variable substitution only; see ``MailTemplate``).
///
/// A folder named by `--mail-templates` (``ServerConfiguration/mailTemplatesDirectory``)
/// replaces any part by file name — `<kind>.subject`, `<kind>.txt`, `<kind>.html`, with GoTrue's
/// kinds `confirmation`, `invite`, `recovery`, `magic_link`, `email_change`,
/// `reauthentication` and the account-change notices (`password_changed_notification` and the
/// others of ``AccountNotice``) — and parts it does not have keep their default. An empty `.html` file
/// sends that kind as plain text only. Every template is parsed and checked when the server
/// starts: a file that cannot be read, an unknown variable or an unsupported construct stops
/// the start with the file and line.
///
/// Values are HTML-escaped in HTML bodies only; subjects and text bodies get them as they are.
struct MailTemplates: Sendable {
    /// GoTrue's names of the emails (`internal/mailer/templatemailer`).
    enum Kind: String, Sendable, CaseIterable {
        case confirmation
        case invite
        case recovery
        case magicLink = "magic_link"
        case emailChange = "email_change"
        case reauthentication
        case passwordChangedNotification = "password_changed_notification"
        case emailChangedNotification = "email_changed_notification"
        case phoneChangedNotification = "phone_changed_notification"
        case identityLinkedNotification = "identity_linked_notification"
        case identityUnlinkedNotification = "identity_unlinked_notification"
        case mfaFactorEnrolledNotification = "mfa_factor_enrolled_notification"
        case mfaFactorUnenrolledNotification = "mfa_factor_unenrolled_notification"

        init(_ purpose: EmailPurpose) {
            switch purpose {
            case .signup: self = .confirmation
            case .invite: self = .invite
            case .recovery: self = .recovery
            case .magicLink: self = .magicLink
            case .emailChange, .emailChangeCurrent: self = .emailChange
            case .reauthentication: self = .reauthentication
            }
        }

        /// Whether it tells of a change already made (``AccountNotice``): no link, no code.
        var isNotice: Bool { rawValue.hasSuffix("_notification") }

        /// Whether the email carries a link (all but reauthentication, a code only, and the notices).
        var hasLink: Bool { self != .reauthentication && !isNotice }

        /// The variables its templates may use, as GoTrue gives them to the same email. A
        /// notice's have no token, code or link: a template naming one does not load.
        var variables: Set<String> {
            var names: Set<String> = ["SiteURL", "Email", "Data"]
            switch self {
            case .passwordChangedNotification: break
            case .emailChangedNotification: names.insert("OldEmail")
            case .phoneChangedNotification: names.formUnion(["Phone", "OldPhone"])
            case .identityLinkedNotification, .identityUnlinkedNotification: names.insert("Provider")
            case .mfaFactorEnrolledNotification, .mfaFactorUnenrolledNotification: names.insert("FactorType")
            case .confirmation, .invite, .recovery, .magicLink, .emailChange, .reauthentication:
                names.insert("Token")
                if hasLink { names.formUnion(["ConfirmationURL", "TokenHash", "RedirectTo"]) }
                if self == .emailChange { names.formUnion(["NewEmail", "SendingTo"]) }
            }
            return names
        }
    }

    /// The parts of one email, each a file `<kind>.<extension>`.
    enum Part: String, Sendable, CaseIterable {
        case subject
        case text = "txt"
        case html
    }

    /// One kind's parsed templates.
    struct KindTemplates: Sendable {
        var subject: MailTemplate
        var text: MailTemplate
        /// `nil`: the kind is sent as plain text only.
        var html: MailTemplate?
    }

    private let sets: [Kind: KindTemplates]

    /// The built-in templates.
    static let defaults: MailTemplates = {
        do {
            return try load(overrides: nil)
        } catch {
            preconditionFailure("the default mail templates do not parse: \(error)")
        }
    }()

    /// The default templates, with the files in `overrides` (when given) in their place.
    static func load(overrides directory: URL?) throws(ConfigurationError) -> MailTemplates {
        let files = try directory.map { directory throws(ConfigurationError) in try overrideFiles(in: directory) } ?? [:]
        var sets: [Kind: KindTemplates] = [:]
        for kind in Kind.allCases {
            func template(_ part: Part, _ defaultText: String) throws(ConfigurationError) -> MailTemplate? {
                var text = defaultText
                var source = "default \(kind.rawValue).\(part.rawValue)"
                if let url = files["\(kind.rawValue).\(part.rawValue)"] {
                    text = try read(url)
                    source = url.path
                    if part == .html, text.allSatisfy(\.isWhitespace) { return nil }
                }
                if part == .subject {
                    text = text.trimmingCharacters(in: .whitespacesAndNewlines)
                    guard !text.isEmpty else { throw ConfigurationError("\(source): the subject is empty") }
                    guard !text.contains(where: \.isNewline) else { throw ConfigurationError("\(source): a subject is one line") }
                }
                if part == .text, text.allSatisfy(\.isWhitespace) {
                    throw ConfigurationError(
                        "\(source): the plain-text body is empty (it is always sent; to send no HTML part, leave the .html file empty instead)")
                }
                return try MailTemplate.parse(text, source: source, allowed: kind.variables, kind: kind.rawValue)
            }
            guard let subject = try template(.subject, DefaultMailTemplates.subject(kind)),
                let text = try template(.text, DefaultMailTemplates.text(kind))
            else { continue }
            sets[kind] = KindTemplates(subject: subject, text: text, html: try template(.html, DefaultMailTemplates.html(kind)))
        }
        return MailTemplates(sets: sets)
    }

    /// The template files in `directory` by name. Files named like a template but for no known
    /// kind or part (`confirmaton.txt`, `recovery.htm`) are refused rather than ignored; other
    /// files (a README) are left alone.
    private static func overrideFiles(in directory: URL) throws(ConfigurationError) -> [String: URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ConfigurationError("--mail-templates \(directory.path) is not a folder")
        }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            throw ConfigurationError("--mail-templates \(directory.path) cannot be listed")
        }
        let kinds = Set(Kind.allCases.map(\.rawValue))
        let parts = Set(Part.allCases.map(\.rawValue))
        var files: [String: URL] = [:]
        for name in names.sorted() where !name.hasPrefix(".") {
            guard let dot = name.lastIndex(of: ".") else { continue }
            let kind = String(name[..<dot])
            let part = String(name[name.index(after: dot)...])
            if kinds.contains(kind), parts.contains(part) {
                files[name] = directory.appendingPathComponent(name)
            } else if kinds.contains(kind) || parts.contains(part) || ["htm", "text", "tmpl", "gohtml"].contains(part) {
                throw ConfigurationError(
                    "\(directory.appendingPathComponent(name).path): not a mail template name; use <kind>.subject, <kind>.txt or <kind>.html with kind one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
        }
        return files
    }

    private static func read(_ url: URL) throws(ConfigurationError) -> String {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ConfigurationError("\(url.path): cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError("\(url.path): is not UTF-8 text")
        }
        return text
    }

    /// What the templates' variables stand for in one email.
    struct Context: Sendable {
        /// Where the email goes.
        var to: String
        /// The account's email address (for an email change, the current one).
        var email: String
        /// The `/verify` link; `nil` for reauthentication.
        var confirmationURL: String?
        /// The six-digit code.
        var token: String
        /// The link's token, what `POST /verify` takes as `token_hash`.
        var tokenHash: String?
        var siteURL: String
        /// Where the link lands after verifying.
        var redirectTo: String?
        /// The new address of an email change.
        var newEmail: String?
        /// The user's metadata.
        var data: [String: JSONValue]
    }

    /// The email of `purpose` for `context`.
    func message(_ purpose: EmailPurpose, _ context: Context) -> MailMessage {
        var named = ["SiteURL": context.siteURL, "Email": context.email, "Token": context.token, "SendingTo": context.to]
        named["ConfirmationURL"] = context.confirmationURL
        named["TokenHash"] = context.tokenHash
        named["RedirectTo"] = context.redirectTo
        named["NewEmail"] = context.newEmail
        return render(Kind(purpose), to: context.to, MailTemplate.Values(named: named, data: context.data))
    }

    /// The email of `notice` about `user`, to `address` (GoTrue's `Email` is the account's
    /// address after the change; for an unlinked identity, the address mailed).
    func message(_ notice: AccountNotice, about user: UserRecord, to address: String, siteURL: String) -> MailMessage {
        var named = ["SiteURL": siteURL, "Email": notice.kind == .identityUnlinkedNotification ? address : user.email]
        switch notice {
        case .passwordChanged: break
        case .emailChanged(let oldEmail): named["OldEmail"] = oldEmail
        case .phoneChanged(let oldPhone):
            named["Phone"] = user.phone
            named["OldPhone"] = oldPhone
        case .identityLinked(let provider), .identityUnlinked(let provider): named["Provider"] = provider
        case .factorEnrolled(let factorType), .factorUnenrolled(let factorType): named["FactorType"] = factorType
        }
        return render(notice.kind, to: address, MailTemplate.Values(named: named, data: user.userMetadata))
    }

    private func render(_ kind: Kind, to address: String, _ values: MailTemplate.Values) -> MailMessage {
        let set = sets[kind] ?? MailTemplates.defaults.sets[kind]!
        return MailMessage(
            to: address, subject: set.subject.render(values, escapingHTML: false), body: set.text.render(values, escapingHTML: false),
            html: set.html?.render(values, escapingHTML: true))
    }
}
