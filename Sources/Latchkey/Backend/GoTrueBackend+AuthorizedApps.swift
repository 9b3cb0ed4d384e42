import Foundation

/// GoTrue's routes for the apps a user let sign in as them through its OAuth 2.1 server
/// (`/user/oauth/grants`), as the Latchkey server and Supabase serve them.
extension GoTrueBackend {
    public func authorizedApps(accessToken: String) async throws -> [AuthorizedApp] {
        let body = try await send("GET", "user/oauth/grants", accessToken: accessToken)
        return try decode([GrantResponse].self, from: body).map(\.app)
    }

    public func revokeAuthorizedApp(accessToken: String, clientID: String) async throws {
        // The server's own answer to an id that is not a UUID, without sending it.
        guard let id = UUID(uuidString: clientID) else {
            throw BackendError.server(status: 400, code: "validation_failed", message: "invalid client_id format", retryAfter: nil)
        }
        _ = try await send("DELETE", "user/oauth/grants", query: [("client_id", id.uuidString.lowercased())], accessToken: accessToken)
    }

    /// One entry of `GET /user/oauth/grants`:
    /// `{"client":{"id","name","uri","logo_uri"},"scopes":[…],"granted_at":"<RFC 3339>"}`; the
    /// client's name and URIs may be absent (GoTrue leaves empty ones out) or `null`.
    private struct GrantResponse: Decodable {
        struct Client: Decodable {
            var id: String
            var name: String?
            var uri: String?
            var logo_uri: String?
        }

        var client: Client
        var scopes: [String]?
        var granted_at: Date

        var app: AuthorizedApp {
            AuthorizedApp(
                clientID: client.id.lowercased(), name: client.name.flatMap { $0.isEmpty ? nil : $0 },
                uri: client.uri.flatMap { URL(string: $0) }, logoURI: client.logo_uri.flatMap { URL(string: $0) }, scopes: scopes ?? [],
                grantedAt: granted_at)
        }
    }
}
