import Foundation

/// The API keys of a server: JWTs signed with its secret for the `anon` and `service_role` roles.
public struct ServerKeys: Sendable {
    /// Sent by Supabase clients in the `apikey` header.
    public var anon: String
    /// Grants access to `/admin`; keep it off clients.
    public var serviceRole: String

    /// Keys for the server whose data lives in `dataDirectory` (its secret is generated if missing).
    public static func make(dataDirectory: URL, configuredSecret: String?, externalURL: String? = nil, now: Date = Date()) async throws -> ServerKeys {
        if let configuredSecret, configuredSecret.utf8.count < 32 {
            throw ConfigurationError("LATCHKEY_JWT_SECRET must be at least 32 bytes long")
        }
        try ServerSecrets.prepareDataDirectory(dataDirectory)
        let secret = try ServerSecrets.jwtSecret(configured: configuredSecret, dataDirectory: dataDirectory)
        var configuration = ServerConfiguration(dataDirectory: dataDirectory)
        configuration.externalURL = externalURL
        let signer = await TokenSigner(secret: secret, issuer: configuration.resolvedExternalURL() + "/auth/v1")
        return ServerKeys(
            anon: try await signer.apiKey(role: "anon", now: now),
            serviceRole: try await signer.apiKey(role: "service_role", now: now))
    }
}
