import Foundation
import Logging

/// A phone factor's codes: made, hashed and sent by SMS (or WhatsApp) with GoTrue's
/// `GOTRUE_MFA_PHONE_*` settings, through the server's SMS provider or, when it is on, the send
/// SMS hook (`sms_type` `mfa`).
///
/// A challenge stores only the hash of its code, bound to the challenge's id: a code verifies
/// no other challenge, and the database never holds one. Every message sent counts against the
/// server's SMS limit (`GOTRUE_RATE_LIMIT_SMS_SENT`), given back when the provider refuses it.
struct PhoneFactorMessages: Sendable {
    let sender: any SMSSender
    let limits: RateLimits
    let tokens: OpaqueTokens
    /// Digits in a code.
    let codeLength: Int
    /// The text, `{{ .Code }}` replaced by the code; `nil`: "Your code is {{ .Code }}".
    let template: String?
    let logger: Logger
    /// The send SMS hook, when on: codes go to it instead of ``sender``.
    var hook: SendSMSHook? = nil

    /// A new random code.
    func newCode() -> String {
        PhoneCodes.randomCode(length: codeLength)
    }

    /// The hash a challenge stores for `code`.
    func hash(_ code: String, challengeID: UUID) -> String {
        tokens.codeHash(code, address: "mfa-challenge:" + challengeID.lowercasedString)
    }

    /// Whether `code` is the one whose hash `challenge` holds, compared in constant time.
    func matches(_ code: String, _ challenge: ChallengeRecord) -> Bool {
        guard let stored = challenge.codeHash else { return false }
        return constantTimeEquals(stored, hash(code, challengeID: challenge.id))
    }

    /// Sends `code` to `phone` of `user`; 429 past the server's SMS limit, 500 "error sending
    /// message" when the provider refuses it and "error invoking hook" when the send SMS hook
    /// refuses it or fails (GoTrue's answers).
    func send(_ code: String, to phone: String, channel: SMSMessage.Channel, factorID: UUID, user: UserRecord) async throws {
        let slot = try await limits.admitSMS()
        if let hook {
            do {
                try await hook.send(code: code, phone: phone, type: "mfa", to: user)
            } catch {
                await limits.release(slot)
                logger.warning("MFA SMS not sent: the send SMS hook failed", metadata: ["factor_id": "\(factorID)", "error_code": "\(error.code)"])
                throw AuthError.phoneFactorHookFailed
            }
            return
        }
        do {
            _ = try await sender.send(
                SMSMessage(to: phone, body: PhoneSettings.message(template: template, code: code), channel: channel, code: code))
        } catch let error as UnavailableSMSProvider.Unavailable {
            await limits.release(slot)
            logger.warning("MFA SMS not sent: the SMS provider cannot send", metadata: ["factor_id": "\(factorID)", "reason": "\(error.reason)"])
            throw AuthError.phoneFactorProviderUnavailable
        } catch {
            await limits.release(slot)
            logger.warning("MFA SMS not sent", metadata: ["factor_id": "\(factorID)", "error": "\(error)"])
            throw AuthError.phoneFactorMessageNotSent
        }
    }
}
