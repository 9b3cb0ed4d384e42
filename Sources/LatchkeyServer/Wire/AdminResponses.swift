import Foundation

/// A page of users, as `GET /admin/users` returns it.
struct UserList: Encodable, Sendable {
    var users: [UserResponse]
    var aud: String
}

/// An audit-log entry in GoTrue's shape, as `GET /admin/audit` returns it.
struct AuditResponse: Encodable, Sendable {
    struct Payload: Encodable, Sendable {
        var action: String
        var actor_id: String
        var actor_username: String
        var actor_via_sso = false
        var log_type: String
        var traits: [String: JSONValue]
    }
    var id: String
    var payload: Payload
    var created_at: String
    var ip_address: String

    init(_ entry: AuditEntry) {
        id = entry.id.uuidString.lowercased()
        payload = Payload(
            action: entry.action.rawValue, actor_id: entry.actorID?.uuidString.lowercased() ?? "",
            actor_username: entry.actorUsername ?? "", log_type: entry.logType, traits: entry.traits)
        created_at = WireDate.format(entry.createdAt)
        ip_address = entry.ipAddress
    }
}
