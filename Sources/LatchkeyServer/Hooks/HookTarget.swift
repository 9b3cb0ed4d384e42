import Foundation

/// Where a hook is, as its URI says: an HTTP(S) endpoint signed with Standard Webhooks, a
/// PostgreSQL function (PostgreSQL store only), or nowhere: enabled without a URI, which GoTrue
/// starts with and fails at each call.
enum HookTarget: Sendable, Equatable {
    case http(HookEndpoint)
    case postgresFunction(PostgresFunctionName)
    case missingURI
}
