import Foundation
import LatchkeyWire

/// `POST /otp` with `phone`: sign-in by a code sent by SMS (or WhatsApp, `channel`).
///
/// A number with a confirmed account gets a sign-in code; a number without one gets the same
/// code and, when `create_user` allows it, an account with no password that the code confirms.
/// The answer is `{}` in every case — with `create_user: false` as well, where GoTrue answers 422
/// for an unknown number and so tells which numbers have accounts; Latchkey then sends nothing,
/// and a second request within `SMS_MAX_FREQUENCY`, or any once the server's SMS limit is spent,
/// is 429 as for a number with an account. A new account whose code cannot be sent is not kept.
struct PhoneSignIn: ServiceDependent {
    let shared: ServiceDependencies
    let codes: PhoneCodes
    let signUpDisabled: Bool

    /// Sends `body.phone` a sign-in code.
    func send(_ body: OTPBody, ipAddress: String) async throws {
        let channel = try PhoneCodes.channel(body.channel)
        let phone = try InputRules.normalizedPhone(body.phone)
        _ = try PKCEChallenge(challenge: body.code_challenge, method: body.code_challenge_method)
        try await limits.admitSignIn(from: ipAddress)
        if let existing = try await store.user(phone: phone) {
            guard !existing.isBanned(at: clock.now()) else { return try await codes.admitNothingSent(to: phone) }
            try await codes.send(.confirmation, to: existing, phone: phone, channel: channel, ipAddress: ipAddress)
            return
        }
        // No account and none to create: nothing is sent, and a second request within the
        // minimum interval is refused as it is for a number with an account.
        guard body.create_user ?? true, !signUpDisabled else { return try await codes.admitNothingSent(to: phone) }
        let now = clock.now()
        let user = UserRecord(
            email: "", passwordHash: nil, appMetadata: ["provider": .string("phone"), "providers": .array([.string("phone")])],
            userMetadata: body.data ?? [:], createdAt: now, updatedAt: now, phone: phone)
        if let beforeUserCreated { try await beforeUserCreated.check(user) }
        do {
            try await store.insertUser(
                user,
                audit: AuditEntry(
                    action: .userSignedUp, actorID: user.id, actorUsername: phone, traits: ["provider": .string("phone")],
                    ipAddress: ipAddress, createdAt: now))
        } catch StoreError.duplicatePhone {
            return  // signed up a moment ago by another request, which sends the code
        }
        // Without a code sent the account is not kept: a later /resend or /otp finds none.
        let sent = try await codes.confirmNewAccount(user, phone: phone, channel: channel, ipAddress: ipAddress)
        try await afterUserCreated?.notifySignedUp(sent)
    }

    /// `POST /resend` types `sms` (a sign-up's code again, while the number is unconfirmed) and
    /// `phone_change` (the code for the user's `new_phone` again), for the user whose number is
    /// `body.phone`. The answer is `{}` whether or not there was anything to send, and limited
    /// alike (``PhoneCodes/admitNothingSent(to:)``), so it does not tell which numbers have
    /// accounts.
    func resend(_ body: EmailBody, ipAddress: String) async throws {
        guard body.email == nil else { throw AuthError.validation("Only an email address or phone number should be provided.") }
        let phone = try InputRules.normalizedPhone(body.phone)
        try await limits.admitSignIn(from: ipAddress)
        guard let user = try await store.user(phone: phone), !user.isBanned(at: clock.now()) else {
            return try await codes.admitNothingSent(to: phone)
        }
        if body.type == "phone_change" {
            guard let newPhone = user.phoneChange else { return try await codes.admitNothingSent(to: phone) }
            try await codes.send(.phoneChange, to: user, phone: newPhone, channel: .sms, ipAddress: ipAddress)
        } else {
            guard user.phoneConfirmedAt == nil else { return try await codes.admitNothingSent(to: phone) }
            try await codes.send(.confirmation, to: user, phone: phone, channel: .sms, ipAddress: ipAddress)
        }
    }
}
