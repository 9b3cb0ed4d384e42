import Foundation
import Logging

/// Mails account-change notices (``AccountNotice``) that are on, after the change is stored.
///
/// A notice goes to the account's address (for an email change, the previous one), never to a
/// user without one. It is sent off the request's path: the answer does not wait for the mailer,
/// and a notice that cannot be sent is logged (without the address) and changes nothing else.
/// With every notice off, ``send(_:about:to:evenWhenOff:)`` returns at once and starts nothing
/// (unless `evenWhenOff`). With the send
/// email hook on, a notice goes to the hook (GoTrue's `email_action_type` is the notice's kind,
/// with `old_email`, `old_phone`, `provider` or `factor_type`) instead of the mailer.
struct AccountNotices: Sendable {
    private let enabled: Set<MailTemplates.Kind>
    private let mailer: any Mailer
    private let templates: MailTemplates
    private let siteURL: String
    private let logger: Logger
    /// The send email hook, when on: notices go to it instead of ``mailer``.
    var hook: SendEmailHook? = nil

    init(settings: AccountNoticeSettings, mailer: any Mailer, templates: MailTemplates, siteURL: String, logger: Logger) {
        self.enabled = settings.enabledKinds
        self.mailer = mailer
        self.templates = templates
        self.siteURL = siteURL
        self.logger = logger
    }

    /// Whether `kind` is mailed.
    func isEnabled(_ kind: MailTemplates.Kind) -> Bool { enabled.contains(kind) }

    /// Mails `notice` about `user`, as stored after the change, to `address` (by default the
    /// user's address), when that kind is on (or `evenWhenOff`: a removal the user did not ask
    /// for) and there is an address. Returns the task sending it, `nil` when nothing is sent.
    @discardableResult
    func send(_ notice: AccountNotice, about user: UserRecord, to address: String? = nil, evenWhenOff: Bool = false) -> Task<Void, Never>? {
        guard evenWhenOff || enabled.contains(notice.kind) else { return nil }
        let recipient = address ?? user.email
        guard !recipient.isEmpty else { return nil }
        let message = templates.message(notice, about: user, to: recipient, siteURL: siteURL)
        let (mailer, logger, kind, userID, hook) = (mailer, logger, notice.kind, user.id, hook)
        let data = Self.hookData(notice)
        return Task {
            do {
                if let hook {
                    try await hook.send(data, about: user)
                } else {
                    try await mailer.send(message)
                }
            } catch {
                // Mailers' errors carry no credentials, and a notice carries no secret.
                logger.warning(
                    "account-change notice not sent",
                    metadata: [
                        "notice": "\(kind.rawValue)", "user_id": "\(userID)", "email_hash": "\(EmailHash.of(recipient))",
                        "error": "\(String(describing: error))",
                    ])
            }
        }
    }

    /// What the send email hook is told of `notice`.
    static func hookData(_ notice: AccountNotice) -> SendEmailHook.EmailData {
        var data = SendEmailHook.EmailData(actionType: notice.kind.rawValue)
        switch notice {
        case .passwordChanged: break
        case .emailChanged(let oldEmail): data.oldEmail = oldEmail
        case .phoneChanged(let oldPhone): data.oldPhone = oldPhone
        case .identityLinked(let provider), .identityUnlinked(let provider): data.provider = provider
        case .factorEnrolled(let factorType), .factorUnenrolled(let factorType): data.factorType = factorType
        }
        return data
    }
}
