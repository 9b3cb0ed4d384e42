import Foundation
import LatchkeyWire
import Logging

/// `POST /signup` with `phone` and `password`.
///
/// With SMS autoconfirm the account is signed in at once; otherwise a code is sent by SMS and
/// the answer is the unconfirmed user, confirmed by `POST /verify` type `sms`. Signing up again
/// with an unconfirmed number sends a code again and changes nothing else; with a confirmed
/// number it sends nothing and answers a user that looks new, so the answer does not tell
/// whether the number has an account.
struct PhoneSignUp: ServiceDependent {
    let shared: ServiceDependencies
    let codes: PhoneCodes

    func signUp(_ body: SignUpBody, ipAddress: String) async throws -> SignUp.Outcome {
        let channel = try PhoneCodes.channel(body.channel)
        if body.code_challenge != nil { throw AuthError.validation("PKCE not supported for phone signups") }
        let phone = try InputRules.normalizedPhone(body.phone)
        try await limits.admitSignIn(from: ipAddress)
        guard let password = body.password else { throw AuthError.validation("Signup requires a valid password") }
        try await passwords.check(password)

        if let existing = try await store.user(phone: phone) {
            try await store.appendAudit(
                AuditEntry(action: .userRepeatedSignUp, actorID: existing.id, actorUsername: phone, ipAddress: ipAddress, createdAt: clock.now()))
            if existing.phoneConfirmedAt != nil {
                guard !codes.settings.autoconfirm else { throw AuthError.userAlreadyExists }
                _ = try await passwords.hash(checked: password)  // the same work as a new sign-up
                try await codes.admitNothingSent(to: phone)  // and the same limits as the code it would send
                return .user(Self.lookalike(phone: phone, data: body.data ?? [:], at: clock.now()))
            }
            let sent = try await codes.send(.confirmation, to: existing, phone: phone, channel: channel, ipAddress: ipAddress)
            return .user(UserResponse(sent))
        }

        let now = clock.now()
        var user = UserRecord(
            email: "", passwordHash: try await passwords.hash(checked: password),
            appMetadata: ["provider": .string("phone"), "providers": .array([.string("phone")])], userMetadata: body.data ?? [:],
            createdAt: now, updatedAt: now, phone: phone)
        if codes.settings.autoconfirm { user.phoneConfirmedAt = now }
        if let beforeUserCreated { try await beforeUserCreated.check(user) }
        let audit = AuditEntry(
            action: .userSignedUp, actorID: user.id, actorUsername: phone, traits: ["provider": .string("phone")], ipAddress: ipAddress,
            createdAt: now)
        do {
            if codes.settings.autoconfirm {
                // Signed before the account is stored: a custom access token hook's refusal
                // leaves no account behind, as for an email sign-up.
                let session = try await sessions.presign(sessions.prepare(for: user, method: "password", ipAddress: ipAddress))
                try await store.insertUser(session.user, audit: audit, start: .session(session))
                logger.info("user signed up", metadata: ["user_id": "\(user.id)", "provider": "phone"])
                try await afterUserCreated?.notifySignedUp(session.user)
                return .session(try await sessions.started(session))
            }
            try await store.insertUser(user, audit: audit)
        } catch StoreError.duplicatePhone {
            throw AuthError.userAlreadyExists
        }
        logger.info("user signed up", metadata: ["user_id": "\(user.id)", "provider": "phone"])
        let sent = try await codes.confirmNewAccount(user, phone: phone, channel: channel, ipAddress: ipAddress)
        try await afterUserCreated?.notifySignedUp(sent)
        return .user(UserResponse(sent))
    }

    /// What a new, unconfirmed sign-up of `phone` answers — with an id that belongs to nobody.
    static func lookalike(phone: String, data: [String: JSONValue], at now: Date) -> UserResponse {
        var user = UserRecord(
            email: "", passwordHash: nil, appMetadata: ["provider": .string("phone"), "providers": .array([.string("phone")])],
            userMetadata: data, createdAt: now, updatedAt: now, phone: phone)
        user.confirmationSentAt = now
        return UserResponse(user)
    }
}
