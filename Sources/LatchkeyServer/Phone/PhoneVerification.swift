import Foundation
import LatchkeyWire

/// `POST /verify` with `phone` and `token`, types `sms` and `phone_change`: a session for a code
/// sent by SMS.
///
/// `sms` redeems a sign-up or sign-in code and confirms the number; `phone_change` redeems the
/// code sent to a new number and makes it the user's. A code is spent by its first use, counts
/// only for the number it was sent to and expires after ``PhoneSettings/codeTTL``; wrong codes
/// count against the number as for email codes.
struct PhoneVerification: ServiceDependent {
    let shared: ServiceDependencies
    let codes: PhoneCodes

    func verify(_ body: VerifyBody, ipAddress: String) async throws -> SessionResponse {
        let purpose: PhoneCodes.Purpose = body.type == "phone_change" ? .phoneChange : .confirmation
        guard let code = body.token, !code.isEmpty else { throw AuthError.validation("Verify requires either a token or a token hash") }
        guard body.email == nil else { throw AuthError.validation("Only an email address or phone number should be provided on verify") }
        let phone = try InputRules.normalizedPhone(body.phone)
        try await limits.admitVerification(from: ipAddress)
        let redeemed = try await codes.redeem(code, phone: phone, purpose: purpose)
        let now = clock.now()
        if redeemed.user.isBanned(at: now) { throw AuthError.userBannedForbidden }
        var user = redeemed.user
        let (oldPhone, hadPhoneIdentity) = (user.phone, user.hasPhoneIdentity)
        user.updatedAt = now
        switch purpose {
        case .confirmation:
            guard user.phone == phone else { throw AuthError.codeExpired }
            if user.phoneConfirmedAt == nil { user.phoneConfirmedAt = now }
        case .phoneChange:
            guard user.phoneChange == phone else { throw AuthError.codeExpired }
            user.phone = phone
            user.phoneChange = nil
            user.phoneChangeSentAt = nil
            user.phoneConfirmedAt = now
            user.isAnonymous = false
            if !user.hasPhoneIdentity {
                user.appMetadata["providers"] = .array((user.providers + ["phone"]).map(JSONValue.string))
                if user.appMetadata["provider"] == nil { user.appMetadata["provider"] = .string("phone") }
            }
        case .reauthentication:
            throw AuthError.codeExpired  // a reauthentication nonce is spent by `PUT /user`, never here
        }
        try await store.updateUser(
            user,
            audit: AuditEntry(
                action: .userModified, actorID: user.id, actorUsername: phone, traits: ["verified": .string(purpose.kind.rawValue)],
                ipAddress: ipAddress, createdAt: now))
        if purpose == .phoneChange {
            if oldPhone != user.phone { notices.send(.phoneChanged(oldPhone: oldPhone), about: user) }
            if !hadPhoneIdentity, user.hasPhoneIdentity { notices.send(.identityLinked(provider: "phone"), about: user) }
        }
        return try await sessions.start(for: user, method: "otp", ipAddress: ipAddress)
    }
}
