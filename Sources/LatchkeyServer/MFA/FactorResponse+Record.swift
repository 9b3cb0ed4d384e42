import Foundation
import LatchkeyWire

extension FactorResponse {
    /// A stored factor as GoTrue shows it (never its secret).
    init(_ factor: FactorRecord) {
        self.init(
            id: factor.id.lowercasedString, factor_type: factor.factorType, status: factor.status.rawValue,
            friendly_name: factor.friendlyName, phone: factor.phone, created_at: WireDate.format(factor.createdAt),
            updated_at: WireDate.format(factor.updatedAt), last_challenged_at: factor.lastChallengedAt.map(WireDate.format))
    }
}

extension UserResponse {
    /// The GoTrue user object for a stored user and their factors (`factors` left out when
    /// there are none, as GoTrue).
    init(_ user: UserRecord, factors: [FactorRecord]) {
        self.init(user, factors: factors, identities: [])
    }
}
