import Foundation

/// The API keys of a server: JWTs signed with its secret for the `anon` and `service_role` roles.
public struct ServerKeys: Sendable {
    /// Sent by Supabase clients in the `apikey` header.
    public var anon: String
    /// Grants access to `/admin`; keep it off clients.
    public var serviceRole: String

    /// Keys for the server whose data lives in `dataDirectory`.
    ///
    /// - Parameter createSecret: whether a missing secret is generated (as `serve` does on its
    ///   first start); when `false`, a data directory without a secret file and no
    ///   `configuredSecret` throws a ``ConfigurationError``, since keys signed with a new secret
    ///   would not open the running server.
    public static func make(
        dataDirectory: URL, configuredSecret: String?, externalURL: String? = nil, now: Date = Date(), createSecret: Bool = true
    ) async throws -> ServerKeys {
        if let configuredSecret, configuredSecret.utf8.count < 32 {
            throw ConfigurationError("LATCHKEY_JWT_SECRET must be at least 32 bytes long")
        }
        if configuredSecret == nil, !createSecret, !FileManager.default.fileExists(atPath: secretFile(in: dataDirectory).path) {
            throw ConfigurationError(
                "no JWT secret: set LATCHKEY_JWT_SECRET (or GOTRUE_JWT_SECRET) as the server has it, or name the server's data directory with --data-dir (\(secretFile(in: dataDirectory).path) does not exist)"
            )
        }
        if createSecret { try ServerSecrets.prepareDataDirectory(dataDirectory) }
        let secret = try ServerSecrets.jwtSecret(configured: configuredSecret, dataDirectory: dataDirectory)
        var configuration = ServerConfiguration(dataDirectory: dataDirectory)
        configuration.externalURL = externalURL
        let signer = await TokenSigner(secret: secret, origin: ServerOrigin(configuration.resolvedExternalURL()))
        return ServerKeys(
            anon: try await signer.apiKey(role: "anon", now: now),
            serviceRole: try await signer.apiKey(role: "service_role", now: now))
    }

    /// Where a server keeps the secret it generated: `<dataDirectory>/jwt-secret`.
    public static func secretFile(in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("jwt-secret")
    }
}
