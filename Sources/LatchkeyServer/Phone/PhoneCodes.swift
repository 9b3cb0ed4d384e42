import Foundation
import Logging

/// Sending a code by SMS, and the rules every phone flow shares.
///
/// A code is stored like an emailed one: only its hash, bound to the number it went to, in the
/// user's `confirmation_token` (sign-up and sign-in) or `phone_change_token` row. A user gets
/// at most one code of a kind per ``PhoneSettings/maximumFrequency``; every message sent counts
/// against the server's SMS limit, given back when the provider refuses it. A test number
/// (``PhoneSettings/testCodes``) gets its fixed code stored the same way and no message.
///
/// With a provider that checks its own codes (``SMSCodeChecker``, Twilio Verify) the row records
/// that a code went to the number, under a value only the server can derive, and the code the
/// user types is checked by the provider before the row is spent, as GoTrue does.
struct PhoneCodes: ServiceDependent {
    /// Which code is sent: sign-up and sign-in share GoTrue's confirmation token.
    enum Purpose: Sendable {
        case confirmation
        case phoneChange
        /// The nonce a phone-only user's `GET /reauthenticate` sends.
        case reauthentication

        var kind: OneTimeToken.Kind {
            switch self {
            case .confirmation: .confirmation
            case .phoneChange: .phoneChange
            case .reauthentication: .reauthentication
            }
        }
        /// What GoTrue names it in "Error sending … OTP to provider".
        var name: String {
            switch self {
            case .confirmation: "confirmation"
            case .phoneChange: "phone_change"
            case .reauthentication: "reauthentication"
            }
        }
    }

    let shared: ServiceDependencies
    let sender: any SMSSender
    let settings: PhoneSettings
    /// ``PhoneSettings/testCodes``, parsed.
    let testCodes: [String: String]
    let testCodesValidUntil: Date?
    /// The send SMS hook, when on: codes go to it instead of ``sender``, which it replaces.
    var hook: SendSMSHook? = nil

    init(shared: ServiceDependencies, sender: any SMSSender, settings: PhoneSettings) {
        self.shared = shared
        self.sender = sender
        self.settings = settings
        // Checked when the configuration was validated.
        testCodes = (try? settings.parsedTestCodes()) ?? [:]
        testCodesValidUntil = try? settings.parsedTestCodesValidUntil()
    }

    /// The channel `raw` names (absent: SMS), or GoTrue's 400.
    static func channel(_ raw: String?) throws(AuthError) -> SMSMessage.Channel {
        guard let raw, !raw.isEmpty else { return .sms }
        guard let channel = SMSMessage.Channel(rawValue: raw) else {
            throw AuthError.validation(
                "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider."
            )
        }
        return channel
    }

    /// What a request that sends nothing answers, so that it cannot be told from one that sends:
    /// the number's minimum interval (a second request within it is 429, as for a number that
    /// was sent a code) and the server's SMS limit (429 `over_sms_send_rate_limit` once all
    /// numbers together have spent it), without spending either on a message.
    func admitNothingSent(to phone: String) async throws {
        try await limits.admitUnsentCode(to: phone, interval: settings.maximumFrequency)
        guard testCode(for: phone, at: clock.now()) == nil else { return }
        await limits.release(try await limits.admitSMS())
    }

    /// Sends the account `user`, just stored, its confirmation code to `phone`; returns the user
    /// as saved. When no code goes out the account could never be confirmed, so it is not kept
    /// (as GoTrue, whose sign-up and send are one transaction), and the error is thrown.
    func confirmNewAccount(_ user: UserRecord, phone: String, channel: SMSMessage.Channel, ipAddress: String) async throws -> UserRecord {
        do {
            return try await send(.confirmation, to: user, phone: phone, channel: channel, ipAddress: ipAddress)
        } catch {
            _ = try? await store.deleteUser(id: user.id, audit: nil)
            throw error
        }
    }

    /// Sends `user` a code for `purpose` to `phone` and stores its hash; returns the user as
    /// saved (with `confirmation_sent_at`, or `phone_change` and `phone_change_sent_at`; a
    /// reauthentication nonce changes no column, its interval is counted under the number).
    @discardableResult
    func send(_ purpose: Purpose, to user: UserRecord, phone: String, channel: SMSMessage.Channel, ipAddress: String) async throws -> UserRecord {
        let now = clock.now()
        let sentAt: Date? =
            switch purpose {
            case .confirmation: user.confirmationSentAt
            case .phoneChange: user.phoneChangeSentAt
            case .reauthentication: nil
            }
        if purpose == .reauthentication { try await limits.admitUnsentCode(to: "reauthentication:" + phone, interval: settings.maximumFrequency) }
        if let sentAt, now < sentAt.addingTimeInterval(settings.maximumFrequency) {
            let wait = max(1, Int((sentAt.addingTimeInterval(settings.maximumFrequency).timeIntervalSince(now)).rounded(.up)))
            throw AuthError.smsTooSoon(retryAfter: wait)
        }
        let code: String
        if let fixed = testCode(for: phone, at: now) {
            code = fixed
        } else {
            let slot = try await limits.admitSMS()
            code = Self.randomCode(length: settings.codeLength)
            do {
                if let hook {
                    try await hook.send(code: code, phone: phone, to: user)
                } else {
                    _ = try await sender.send(SMSMessage(to: phone, body: settings.message(code: code), channel: channel, code: code))
                }
            } catch let error as AuthError {
                // The send SMS hook's refusal or failure is the answer, as in GoTrue.
                await limits.release(slot)
                logger.warning("SMS not sent: the send SMS hook failed", metadata: ["user_id": "\(user.id)", "error_code": "\(error.code)"])
                throw error
            } catch let error as UnavailableSMSProvider.Unavailable {
                await limits.release(slot)
                logger.warning("SMS not sent: the SMS provider cannot send", metadata: ["user_id": "\(user.id)", "reason": "\(error.reason)"])
                throw AuthError.smsProviderUnavailable
            } catch {
                await limits.release(slot)
                logger.warning("SMS not sent", metadata: ["user_id": "\(user.id)", "error": "\(error)"])
                throw AuthError.smsSendFailed(purpose.name, reason: "\(error)")
            }
        }
        ResponsePadding.markSent()  // a code went out (a test number's fixed code counts as one)
        var updated = user
        updated.updatedAt = now
        switch purpose {
        case .confirmation:
            updated.confirmationSentAt = now
        case .phoneChange:
            updated.phoneChange = phone
            updated.phoneChangeSentAt = now
        case .reauthentication:
            break
        }
        let providerChecks = providerChecksCodes && testCode(for: phone, at: now) == nil
        let token = OneTimeToken(
            userID: user.id, kind: purpose.kind, tokenHash: OpaqueTokens.hash(OpaqueTokens.random()),
            codeHash: tokens.codeHash(providerChecks ? providerCheckedCode(for: phone) : code, address: phone), relatesTo: phone, createdAt: now)
        try await store.saveOneTimeToken(token, updatingUser: updated, audit: nil)
        return updated
    }

    /// Spends the code `code` sent to `phone` for `purpose`, with its user. A wrong code counts
    /// against the number (refused for a while after too many, as email codes); every failure
    /// is 403 `otp_expired` "Token has expired or is invalid".
    func redeem(_ code: String, phone: String, purpose: Purpose) async throws -> (token: OneTimeToken, user: UserRecord) {
        if hook == nil, let checker = sender as? any SMSCodeChecker, testCode(for: phone, at: clock.now()) == nil {
            return try await redeem(code, phone: phone, purpose: purpose, checkedBy: checker)
        }
        let redeemed = try await store.spendSentCode(code, sentTo: phone, kinds: [purpose.kind], tokens: tokens, limits: limits)
        guard clock.now().timeIntervalSince(redeemed.token.createdAt) < settings.codeTTL else { throw AuthError.codeExpired }
        return redeemed
    }

    /// Redeems a code the provider made: the provider must approve it (its own expiry applies),
    /// then the row recording that a code went to `phone` is spent, and must be younger than the
    /// server's code lifetime. A refusal, or a provider that
    /// cannot be asked, counts as a wrong code.
    private func redeem(
        _ code: String, phone: String, purpose: Purpose, checkedBy checker: any SMSCodeChecker
    ) async throws -> (token: OneTimeToken, user: UserRecord) {
        try await limits.checkCodeAttempts(for: phone)
        var approved = false
        do {
            approved = try await checker.check(code, sentTo: phone)
        } catch {
            logger.warning("SMS code not checked", metadata: ["error": "\(error)"])
        }
        guard approved,
            let redeemed = try await store.consumeOneTimeToken(
                codeHash: tokens.codeHash(providerCheckedCode(for: phone), address: phone), kinds: [purpose.kind]),
            redeemed.token.relatesTo == phone
        else {
            try await limits.recordFailedCode(for: phone)
            throw AuthError.codeExpired
        }
        // The provider keeps its own expiry; the server's holds too, as for its own codes.
        guard clock.now().timeIntervalSince(redeemed.token.createdAt) < settings.codeTTL else { throw AuthError.codeExpired }
        return redeemed
    }

    /// Whether the provider makes and checks the codes (Twilio Verify without the send SMS hook).
    var providerChecksCodes: Bool { hook == nil && sender is any SMSCodeChecker }

    /// What stands for the code in the row of a code the provider made: derived from the
    /// server's key and the number, so no client can present it.
    private func providerCheckedCode(for phone: String) -> String {
        tokens.codeHash("provider-checked-code", address: phone)
    }

    /// The fixed code of a test number while test numbers work.
    private func testCode(for phone: String, at now: Date) -> String? {
        if let testCodesValidUntil, now >= testCodesValidUntil { return nil }
        return testCodes[phone]
    }

    /// `length` random decimal digits.
    static func randomCode(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }
}
