import Foundation
internal import LatchkeyWire

extension User {
    /// The user a GoTrue user object describes. Empty strings (GoTrue's "no email", "no phone")
    /// read as absent; an unreadable timestamp reads as absent rather than failing the session.
    init(wire: UserResponse) {
        func nonEmpty(_ text: String?) -> String? { text?.isEmpty == false ? text : nil }
        self.init(
            id: wire.id, email: nonEmpty(wire.email), phone: nonEmpty(wire.phone), aud: wire.aud, role: wire.role,
            emailConfirmedAt: wire.email_confirmed_at.flatMap(WireDate.parse),
            createdAt: wire.created_at.flatMap(WireDate.parse),
            appMetadata: wire.app_metadata ?? [:], userMetadata: wire.user_metadata ?? [:])
        phoneConfirmedAt = wire.phone_confirmed_at.flatMap(WireDate.parse)
        confirmedAt = wire.confirmed_at.flatMap(WireDate.parse)
        lastSignInAt = wire.last_sign_in_at.flatMap(WireDate.parse)
        updatedAt = wire.updated_at.flatMap(WireDate.parse)
        bannedUntil = wire.banned_until.flatMap(WireDate.parse)
        isAnonymous = wire.is_anonymous ?? false
        factors = (wire.factors ?? []).map(Factor.init(wire:))
        identities = (wire.identities ?? []).map(Identity.init(wire:))
    }
}

extension Identity {
    /// The identity a GoTrue identity object describes; without `identity_id` (older servers)
    /// the identity is known by its `id`.
    init(wire: UserResponse.Identity) {
        self.init(
            identityID: wire.identity_id ?? wire.id, providerUserID: wire.id, userID: wire.user_id, provider: wire.provider ?? "",
            email: wire.email.flatMap { $0.isEmpty ? nil : $0 }, identityData: wire.identity_data ?? [:],
            createdAt: wire.created_at.flatMap(WireDate.parse), lastSignInAt: wire.last_sign_in_at.flatMap(WireDate.parse),
            updatedAt: wire.updated_at.flatMap(WireDate.parse))
    }
}

extension Factor {
    /// The factor a GoTrue factor object describes; an unknown status reads as unverified.
    init(wire: FactorResponse) {
        self.init(
            id: wire.id, friendlyName: wire.friendly_name.flatMap { $0.isEmpty ? nil : $0 }, factorType: wire.factor_type,
            status: Status(rawValue: wire.status) ?? .unverified, phone: wire.phone.flatMap { $0.isEmpty ? nil : $0 },
            createdAt: wire.created_at.flatMap(WireDate.parse), updatedAt: wire.updated_at.flatMap(WireDate.parse))
    }
}

extension Session {
    /// The session a GoTrue session object describes. Without `expires_at` the expiry is
    /// `receivedAt + expires_in`; ``SessionManager`` anchors it on the device clock either way.
    init(wire: SessionResponse, receivedAt: Date = Date()) {
        let expiresIn = TimeInterval(wire.expires_in ?? 0)
        self.init(
            accessToken: wire.access_token, refreshToken: wire.refresh_token, tokenType: wire.token_type ?? "bearer",
            expiresIn: expiresIn,
            expiresAt: wire.expires_at.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? receivedAt.addingTimeInterval(expiresIn),
            user: User(wire: wire.user))
    }
}
