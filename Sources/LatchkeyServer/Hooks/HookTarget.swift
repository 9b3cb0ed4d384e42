import Foundation

/// Where a hook is, as its URI says: an HTTP(S) endpoint signed with Standard Webhooks, or a
/// PostgreSQL function (PostgreSQL store only).
enum HookTarget: Sendable, Equatable {
    case http(HookEndpoint)
    case postgresFunction(PostgresFunctionName)
}
