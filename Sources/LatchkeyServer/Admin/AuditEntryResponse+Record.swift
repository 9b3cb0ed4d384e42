import Foundation
import LatchkeyWire

extension AuditEntryResponse {
    /// The GoTrue shape of a stored audit entry.
    init(_ entry: AuditEntry) {
        self.init(
            id: entry.id.lowercasedString,
            payload: Payload(
                action: entry.action.rawValue, actor_id: entry.actorID?.lowercasedString ?? "",
                actor_username: entry.actorUsername ?? "", log_type: entry.logType, traits: entry.traits),
            created_at: WireDate.format(entry.createdAt), ip_address: entry.ipAddress)
    }
}
