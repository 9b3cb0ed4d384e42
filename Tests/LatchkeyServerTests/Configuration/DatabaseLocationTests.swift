import Foundation
import Testing

@testable import LatchkeyServer

/// The one reading of a database URL, shared by `serve` and `backup`.
@Suite("database location")
struct DatabaseLocationTests {
    let data = URL(fileURLWithPath: "/srv/latchkey", isDirectory: true)

    @Test("sqlite:// and sqlite: paths, the data directory's file by default, PostgreSQL URLs as given")
    func locations() throws {
        #expect(try DatabaseLocation(url: nil, dataDirectory: data) == .sqlite(path: "/srv/latchkey/latchkey.sqlite"))
        #expect(try DatabaseLocation(url: "sqlite:///tmp/a.sqlite", dataDirectory: data) == .sqlite(path: "/tmp/a.sqlite"))
        #expect(try DatabaseLocation(url: "sqlite://./rel.sqlite", dataDirectory: data) == .sqlite(path: "./rel.sqlite"))
        #expect(try DatabaseLocation(url: "sqlite:b.sqlite", dataDirectory: data) == .sqlite(path: "b.sqlite"))
        #expect(try DatabaseLocation(url: "postgres://u:p@db/auth", dataDirectory: data) == .postgres(url: "postgres://u:p@db/auth"))
        #expect(try DatabaseLocation(url: "postgresql://db/auth", dataDirectory: data) == .postgres(url: "postgresql://db/auth"))
    }

    @Test("an unusable URL names the flag and variables, never the URL")
    func errors() {
        let empty = #expect(throws: ConfigurationError.self) { try DatabaseLocation(url: "sqlite://", dataDirectory: data) }
        #expect(empty?.description.hasPrefix("--database (LATCHKEY_DATABASE, LATCHKEY_DATABASE_URL, GOTRUE_DB_DATABASE_URL, DATABASE_URL)") == true)
        let other = #expect(throws: ConfigurationError.self) { try DatabaseLocation(url: "mysql://user:pa55word@h/db", dataDirectory: data) }
        #expect(other?.description.contains("must be a sqlite:// or postgres:// URL") == true)
        #expect(other?.description.contains("pa55word") == false)
    }

    @Test("validation messages name the flag and the environment variables")
    func validationMessages() {
        var configuration = ServerConfiguration(dataDirectory: data)
        configuration.port = 70000
        #expect(throws: ConfigurationError("--port (LATCHKEY_PORT, GOTRUE_API_PORT, PORT) must be between 0 and 65535")) {
            try configuration.validate()
        }
        configuration = ServerConfiguration(dataDirectory: data)
        configuration.jwtSecret = "short"
        let secret = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(secret?.description == "LATCHKEY_JWT_SECRET (GOTRUE_JWT_SECRET) must be at least 32 bytes long")
        configuration = ServerConfiguration(dataDirectory: data)
        configuration.smtpURL = "ftp://u:topsecret@h"
        let smtp = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(smtp?.description.hasPrefix("--smtp-url (LATCHKEY_SMTP_URL, GOTRUE_SMTP_HOST)") == true)
        #expect(smtp?.description.contains("topsecret") == false)
        #expect(
            ConfigurationError("--page-templates /x is not a folder").namingSetting().description
                == "--page-templates (LATCHKEY_PAGE_TEMPLATES) /x is not a folder")
        #expect(ConfigurationError("--database postgres:// needs a host").namingSetting().description.hasPrefix("--database (LATCHKEY_DATABASE, "))
        #expect(
            ConfigurationError("--port (LATCHKEY_PORT, GOTRUE_API_PORT, PORT) must be").namingSetting().description
                == "--port (LATCHKEY_PORT, GOTRUE_API_PORT, PORT) must be", "a message that names the variables already stays")
        #expect(ConfigurationError("JWT keys: the list is empty").namingSetting().description == "JWT keys: the list is empty")
    }
}
