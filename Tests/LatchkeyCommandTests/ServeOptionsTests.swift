import Foundation
import LatchkeyServer
import Testing

@testable import LatchkeyCommand

/// `latchkey serve` options that shape GoTrue compatibility, parsed into the configuration.
@Suite("latchkey serve options")
struct ServeOptionsTests {
    @Test("--access-token-ttl 1, --jwt-admin-role, --cors-allowed-origins and --cors-allowed-headers")
    func options() throws {
        let command = try ServeCommand.parse([
            "--access-token-ttl", "1", "--jwt-admin-role", "ops_admin", "--jwt-admin-role", "service_role",
            "--cors-allowed-origins", "https://app.example.com, https://*.preview.example.com,",
            "--cors-allowed-headers", "x-custom",
        ])
        let configuration = try command.settings(environment: [:]).configuration
        #expect(configuration.accessTokenTTL == 1)
        #expect(throws: Never.self) { try configuration.validate() }
        #expect(configuration.jwtAdminRoles == ["ops_admin", "service_role"])
        #expect(configuration.corsAllowedOrigins == ["https://app.example.com", "https://*.preview.example.com"])
        #expect(configuration.corsAllowedHeaders == ["x-custom"])

        let defaults = try ServeCommand.parse([]).settings(environment: [:]).configuration
        #expect(defaults.jwtAdminRoles == ["service_role", "supabase_admin"])
        #expect(defaults.corsAllowedOrigins.isEmpty)
        #expect(defaults.corsAllowedHeaders.isEmpty)
    }
}
