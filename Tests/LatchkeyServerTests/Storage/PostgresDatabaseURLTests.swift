import Foundation
import Testing

@testable import LatchkeyServer

/// How `--database postgres://…` is read: defaults, TLS modes, credentials kept out of logs,
/// and clear errors for URLs that cannot work. No database needed.
@Suite("PostgreSQL database URLs")
struct PostgresDatabaseURLTests {
    @Test("defaults: port 5432, plain TCP")
    func defaults() throws {
        let url = try PostgresDatabaseURL("postgres://latchkey@db.internal/auth")
        #expect(url.host == "db.internal")
        #expect(url.port == 5432)
        #expect(url.username == "latchkey")
        #expect(url.password == nil)
        #expect(url.database == "auth")
        #expect(url.sslMode == "disable")
        #expect(url.connectTimeout == nil)
    }

    @Test("postgresql:// works too; credentials are percent-decoded; options are read")
    func everything() throws {
        let url = try PostgresDatabaseURL("postgresql://app%40corp:p%3Ass%2Fw0rd@10.0.0.5:6432/latchkey?sslmode=verify-full&connect_timeout=3")
        #expect(url.username == "app@corp")
        #expect(url.password == "p:ss/w0rd")
        #expect(url.port == 6432)
        #expect(url.sslMode == "verify-full")
        #expect(url.connectTimeout == .seconds(3))
    }

    @Test("the redacted form never carries the password")
    func redacted() throws {
        let url = try PostgresDatabaseURL("postgres://latchkey:s3cret-pass@127.0.0.1:5432/auth?sslmode=require")
        #expect(url.redacted == "postgres://latchkey@127.0.0.1:5432/auth?sslmode=require")
        #expect(!url.redacted.contains("s3cret"))
    }

    @Test("every TLS mode builds a client configuration", arguments: ["disable", "prefer", "require", "verify-ca", "verify-full"])
    func tlsModes(mode: String) throws {
        let url = try PostgresDatabaseURL("postgres://latchkey@127.0.0.1/auth?sslmode=\(mode)")
        let configuration = try url.clientConfiguration(maximumConnections: 7)
        #expect(configuration.options.maximumConnections == 7)
        #expect(configuration.host == "127.0.0.1")
        _ = try url.connectionConfiguration()
    }

    @Test(
        "unusable URLs are refused with a message that says what to fix",
        arguments: [
            "postgres://", "postgres://latchkey@/auth", "postgres://latchkey@127.0.0.1", "postgres://latchkey@127.0.0.1/auth?sslmode=sometimes",
            "postgres://latchkey@127.0.0.1/auth?connect_timeout=soon", "mysql://latchkey@127.0.0.1/auth",
            "postgres://latchkey@127.0.0.1/auth?sslmode=verify-full&sslrootcert=/nonexistent/root.crt",
        ])
    func refused(url: String) throws {
        #expect(throws: ConfigurationError.self) {
            let parsed = try PostgresDatabaseURL(url)
            _ = try parsed.clientConfiguration(maximumConnections: 1)
        }
    }

    @Test("the pool size and timeout are validated with the rest of the configuration")
    func configurationValidation() {
        var configuration = ServerConfiguration(dataDirectory: FileManager.default.temporaryDirectory)
        configuration.databasePoolSize = 0
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.databasePoolSize = ServerConfiguration.defaultDatabasePoolSize
        configuration.databaseTimeout = 0
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.databaseTimeout = ServerConfiguration.defaultDatabaseTimeout
        #expect(throws: Never.self) { try configuration.validate() }
    }
}
