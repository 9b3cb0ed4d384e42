import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// Account-change notices (GoTrue's `GOTRUE_MAILER_NOTIFICATIONS_*_ENABLED`): each mailed once
/// its change is stored, to the account's address (an email change: the previous one), never
/// with a secret in it; none when off, none to an account without an address, and a notice
/// that cannot be sent changes nothing.
@Suite("Account-change notices")
struct AccountNoticeTests {
    static let subjects: [MailTemplates.Kind: String] = Dictionary(
        uniqueKeysWithValues: MailTemplates.Kind.allCases.filter(\.isNotice).map { ($0, DefaultMailTemplates.subject($0)) })

    static func allOn(_ configuration: inout ServerConfiguration) {
        configuration.notifications.passwordChanged = true
        configuration.notifications.emailChanged = true
        configuration.notifications.phoneChanged = true
        configuration.notifications.identityLinked = true
        configuration.notifications.identityUnlinked = true
        configuration.notifications.mfaFactorEnrolled = true
        configuration.notifications.mfaFactorUnenrolled = true
    }

    /// The notices in the outbox, oldest first.
    static func notices(_ server: TestServer) throws -> [OutboxMail] {
        let subjects = Set(Self.subjects.values)
        return try server.server.outboxMails().filter { subjects.contains($0.subject) }
    }

    /// Waits until the outbox holds a notice of `kind` to `address`, and returns it.
    static func awaitNotice(_ server: TestServer, _ kind: MailTemplates.Kind, to address: String) async throws -> OutboxMail {
        let subject = try #require(subjects[kind])
        let arrived = await eventually(timeout: 120) {
            (try? notices(server).contains { $0.subject == subject && $0.to == address }) ?? false
        }
        #expect(arrived, "no \(kind.rawValue) notice to \(address); outbox: \((try? server.server.outboxMails().map(\.subject)) ?? [])")
        return try #require(try notices(server).last { $0.subject == subject && $0.to == address })
    }

    /// A confirmed account of `email` (confirmations on), signed in.
    static func confirmedAccount(_ server: TestServer, _ email: String, password: String) async throws -> TestSession {
        let response = try await server.request(.POST, "/signup", json: ["email": email, "password": password])
        #expect(response.status == 200, "\(response.text)")
        let verified = try await server.request(.POST, "/verify", json: ["type": "signup", "email": email, "token": try server.emailCode(to: email)])
        return try #require(TestSession(verified), "\(verified.text)")
    }

    @Test("password, factor, phone and email changes each mail their notice to the account's address, with no secret in it")
    func eachNoticeWhenOn() async throws {
        try await PhoneSignInTests.withPhoneServer(configure: {
            Self.allOn(&$0)
            MFATests.roomy(&$0)
            $0.autoconfirm = false
            $0.secureEmailChange = false
        }) { server, sms in
            var secrets = ["correct horse battery", "a brand new password 7"]
            let session = try await Self.confirmedAccount(server, "ada@example.com", password: secrets[0])
            secrets += [try server.emailCode(to: "ada@example.com"), session.accessToken, session.refreshToken]

            let changed = try await server.request(.PUT, "/user", json: ["password": secrets[1]], bearer: session.accessToken)
            #expect(changed.status == 200, "\(changed.text)")
            let password = try await Self.awaitNotice(server, .passwordChangedNotification, to: "ada@example.com")
            #expect(password.text.contains("ada@example.com"))

            let (factor, raised) = try await MFATests.enrollAndVerify(server, session)
            secrets += [factor.secret, raised.accessToken, raised.refreshToken]
            let enrolled = try await Self.awaitNotice(server, .mfaFactorEnrolledNotification, to: "ada@example.com")
            #expect(enrolled.text.contains("totp"))

            let phone = try await server.request(.PUT, "/user", json: ["phone": "+15555550123"], bearer: raised.accessToken)
            #expect(phone.status == 200, "\(phone.text)")
            let smsCode = try sms.code(to: "15555550123")
            secrets.append(smsCode)
            let phoneVerified = try await server.request(
                .POST, "/verify", json: ["type": "phone_change", "phone": "15555550123", "token": smsCode])
            #expect(phoneVerified.status == 200, "\(phoneVerified.text)")
            let phoneNotice = try await Self.awaitNotice(server, .phoneChangedNotification, to: "ada@example.com")
            #expect(phoneNotice.text.contains("15555550123"))
            let phoneLinked = try await Self.awaitNotice(server, .identityLinkedNotification, to: "ada@example.com")
            #expect(phoneLinked.text.contains("phone"))

            let removed = try await server.request(.DELETE, "/factors/\(factor.id)", bearer: raised.accessToken)
            #expect(removed.status == 200, "\(removed.text)")
            let unenrolled = try await Self.awaitNotice(server, .mfaFactorUnenrolledNotification, to: "ada@example.com")
            #expect(unenrolled.text.contains("totp"))

            let email = try await server.request(.PUT, "/user", json: ["email": "new@example.com"], bearer: raised.accessToken)
            #expect(email.status == 200, "\(email.text)")
            let emailCode = try server.emailCode(to: "new@example.com")
            secrets += [emailCode, try server.server.linkToken(to: "new@example.com", type: "email_change")]
            #expect(try Self.notices(server).allSatisfy { $0.subject != Self.subjects[.emailChangedNotification] }, "nothing before the change")
            let confirmed = try await server.request(
                .POST, "/verify", json: ["type": "email_change", "email": "new@example.com", "token": emailCode])
            #expect(confirmed.status == 200, "\(confirmed.text)")
            let emailNotice = try await Self.awaitNotice(server, .emailChangedNotification, to: "ada@example.com")
            #expect(emailNotice.text.contains("new@example.com") && emailNotice.text.contains("ada@example.com"))
            #expect(try Self.notices(server).allSatisfy { $0.to != "new@example.com" }, "the new address gets no notice")

            let notices = try Self.notices(server)
            #expect(notices.count == 6, "\(notices.map(\.subject))")
            for notice in notices {
                #expect(!notice.raw.contains("/verify") && !notice.raw.contains("token="), "no link: \(notice.subject)")
                for secret in secrets {
                    #expect(!notice.raw.contains(secret), "\(notice.subject) holds a secret")
                    #expect(!(notice.html ?? "").contains(secret) && !notice.text.contains(secret), "\(notice.subject) holds a secret")
                }
            }
        }
    }

    @Test("linking and unlinking an identity mail their notices, naming the provider")
    func identityNotices() async throws {
        try await IDTokenGrantTests.with(configure: { Self.allOn(&$0) }) { server, provider in
            let ada = try await server.signUp("ada@example.com")
            let token = try provider.idToken(
                subject: "ada-at-idp", audience: IDTokenGrantTests.clientID, email: "other@example.com", issuedAt: server.clock.now())
            let linked = try await IDTokenGrantTests.grant(server, token, bearer: ada.accessToken, link: true)
            #expect(linked.status == 200, "\(linked.text)")
            let linkedNotice = try await Self.awaitNotice(server, .identityLinkedNotification, to: "ada@example.com")
            #expect(linkedNotice.text.contains("keycloak"))
            #expect(!linkedNotice.raw.contains(token) && !linkedNotice.raw.contains(ada.accessToken))

            let identities = try #require(try await server.request(.GET, "/user", bearer: ada.accessToken)["identities"] as? [[String: Any]])
            let linkedID = try #require(identities.first { $0["provider"] as? String == "keycloak" }?["identity_id"] as? String)
            #expect(try await server.request(.DELETE, "/user/identities/\(linkedID)", bearer: ada.accessToken).status == 200)
            let unlinkedNotice = try await Self.awaitNotice(server, .identityUnlinkedNotification, to: "ada@example.com")
            #expect(unlinkedNotice.text.contains("keycloak"))
            #expect(try Self.notices(server).count == 2)
        }
    }

    @Test("off (the default), no change mails a notice")
    func noneWhenOff() async throws {
        try await IDTokenGrantTests.with(configure: { MFATests.roomy(&$0) }) { server, provider in
            let ada = try await server.signUp("ada@example.com")
            #expect(try await server.request(.PUT, "/user", json: ["password": "a brand new password 7"], bearer: ada.accessToken).status == 200)
            let (factor, raised) = try await MFATests.enrollAndVerify(server, ada)
            let token = try provider.idToken(
                subject: "ada-at-idp", audience: IDTokenGrantTests.clientID, email: "other@example.com", issuedAt: server.clock.now())
            #expect(try await IDTokenGrantTests.grant(server, token, bearer: raised.accessToken, link: true).status == 200)
            #expect(try await server.request(.DELETE, "/factors/\(factor.id)", bearer: raised.accessToken).status == 200)
            // A mail that is sent, after the changes: when it is in the outbox, a notice would have been too.
            #expect(try await server.request(.POST, "/recover", json: ["email": "ada@example.com"]).status == 200)
            #expect(await eventually(timeout: 120) { ((try? server.mailCount(to: "ada@example.com")) ?? 0) >= 1 })
            #expect(try Self.notices(server).isEmpty)
            #expect(try server.mailCount(to: "ada@example.com") == 1)
        }
    }

    @Test("a number taken at once (SMS autoconfirm) sends the phone-changed and identity-linked notices a verified code would")
    func phoneChangeUnderAutoconfirm() async throws {
        try await PhoneSignInTests.withPhoneServer(configure: {
            Self.allOn(&$0)
            $0.autoconfirm = true
            $0.phone.autoconfirm = true
        }) { server, _ in
            let ada = try await server.signUp("ada@example.com")
            let changed = try await server.request(.PUT, "/user", json: ["phone": "15555550177"], bearer: ada.accessToken)
            #expect(changed.status == 200 && changed["phone"] as? String == "15555550177", "\(changed.text)")
            _ = try await Self.awaitNotice(server, .phoneChangedNotification, to: "ada@example.com")
            _ = try await Self.awaitNotice(server, .identityLinkedNotification, to: "ada@example.com")
        }
    }

    @Test("an account without an email address gets none")
    func noneWithoutAddress() async throws {
        try await PhoneSignInTests.withPhoneServer(configure: {
            Self.allOn(&$0)
            MFATests.roomy(&$0)
            $0.phone.autoconfirm = true
        }) { server, _ in
            let signedUp = try await server.request(.POST, "/signup", json: ["phone": "15555550123", "password": "phone password 1"])
            let session = try #require(TestSession(signedUp), "\(signedUp.text)")
            #expect(try await server.request(.PUT, "/user", json: ["password": "phone password 2"], bearer: session.accessToken).status == 200)
            let (factor, raised) = try await MFATests.enrollAndVerify(server, session)
            #expect(try await server.request(.DELETE, "/factors/\(factor.id)", bearer: raised.accessToken).status == 200)
            #expect(try server.server.outboxMails().isEmpty)
        }
    }

    @Test("a notice that cannot be sent is logged without secrets, and the change stands")
    func failedSend() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-notice-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mailer = FailedMailRateLimitTests.SwitchableMailer(directory: directory)
        mailer.failing = true
        let logs = LogCapture()
        try await TestServer.with(mailer: mailer, logger: logs.logger, configure: { $0.notifications.passwordChanged = true }) { server in
            let ada = try await server.signUp("ada@example.com")
            let changed = try await server.request(.PUT, "/user", json: ["password": "a brand new password 7"], bearer: ada.accessToken)
            #expect(changed.status == 200, "\(changed.text)")
            #expect(await eventually(timeout: 120) { logs.lines.contains { $0.contains("account-change notice not sent") } })
            #expect(mailer.attempts == 1)
            #expect(try await server.signIn("ada@example.com", "a brand new password 7").status == 200)
            #expect(logs.lines.allSatisfy { !$0.contains("a brand new password 7") && !$0.contains(ada.accessToken) })
            let line = try #require(logs.lines.first { $0.contains("account-change notice not sent") })
            #expect(!line.contains("ada@example.com") && line.contains("password_changed_notification"), "\(line)")
        }
    }

    @Test(
        "over SMTP: an overridden notice arrives at the account's address, as a mail client reads it",
        .enabled(if: SMTPTestServer.isAvailable && MailClientView.python != nil, "no Python SMTP server or mail client"))
    func overSMTP() async throws {
        try await SMTPTestServer.with(.plain) { smtp in
            try await MailTemplateTests.withFolder(["password_changed_notification.subject": "{{ .Data.name }}, your password changed"]) { folder in
                try await TestServer.with(configure: {
                    $0.notifications.passwordChanged = true
                    $0.smtpURL = "smtp://\(SMTPTestServer.user):\(SMTPTestServer.password)@127.0.0.1:\(smtp.port)?starttls=optional"
                    $0.mailTemplatesDirectory = folder
                }) { server in
                    let ada = try await server.signUp("ada@example.com", data: ["name": "Ada"])
                    let changed = try await server.request(.PUT, "/user", json: ["password": "a brand new password 7"], bearer: ada.accessToken)
                    #expect(changed.status == 200, "\(changed.text)")
                    let received = try #require(try await smtp.waitForMessages().first)
                    #expect(received.recipients == ["ada@example.com"])
                    let mail = try await MailClientView.read(received.data)
                    #expect(mail.defects.isEmpty, "\(mail.defects)")
                    #expect(mail.subject == "Ada, your password changed")
                    #expect(mail.to == "ada@example.com")
                    #expect(try #require(mail.text).contains("ada@example.com"))
                    #expect(!received.data.contains("a brand new password 7") && !received.data.contains(ada.accessToken))
                }
            }
        }
    }

    @Test("a notice template naming a token, code or link does not load; one naming its own variables does")
    func templatesHoldNoSecret() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-notice-templates-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let subject = directory.appendingPathComponent("email_changed_notification.subject")
        try "{{ .OldEmail }} is no longer yours".write(to: subject, atomically: true, encoding: .utf8)
        let templates = try MailTemplates.load(overrides: directory)
        let user = UserRecord(email: "new@example.com", passwordHash: nil, createdAt: Date(), updatedAt: Date())
        let message = templates.message(
            .emailChanged(oldEmail: "old@example.com"), about: user, to: "old@example.com", siteURL: "https://example.com")
        #expect(message.subject == "old@example.com is no longer yours")
        #expect(message.to == "old@example.com")
        for variable in ["Token", "TokenHash", "ConfirmationURL", "RedirectTo"] {
            try "Your code: {{ .\(variable) }}".write(
                to: directory.appendingPathComponent("password_changed_notification.txt"), atomically: true, encoding: .utf8)
            #expect(throws: ConfigurationError.self) { try MailTemplates.load(overrides: directory) }
        }
    }
}
