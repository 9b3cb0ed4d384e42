import Foundation
import PostgresNIO

/// A `postgres://` (or `postgresql://`) URL, read the way libpq reads it, as far as Latchkey
/// needs: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&sslrootcert=…&connect_timeout=…]`.
///
/// Unlike libpq, the default is plain TCP (`sslmode=disable`), which suits a database on the
/// same host or a private network; real deployments name a TLS mode:
///
/// | `sslmode`     | what happens                                                      |
/// |---------------|-------------------------------------------------------------------|
/// | `disable`     | plain TCP (the default)                                           |
/// | `prefer`      | TLS when the server offers it, without verifying its certificate  |
/// | `require`     | TLS or no connection, without verifying the certificate (libpq's meaning) |
/// | `verify-ca`   | TLS, certificate checked against `sslrootcert` (or the system roots) |
/// | `verify-full` | as `verify-ca`, and the host name must match the certificate      |
///
/// The password is never part of ``redacted``, the form that may be logged.
struct PostgresDatabaseURL: Sendable {
    var host: String
    var port: Int
    var username: String
    var password: String?
    var database: String
    var sslMode: String
    var sslRootCertificate: String?
    var connectTimeout: Duration?

    /// Parses `url`; throws a ``ConfigurationError`` that says what to fix.
    init(_ url: String) throws(ConfigurationError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql"
        else { throw ConfigurationError("--database must look like postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE") }
        guard let host = components.host, !host.isEmpty else {
            throw ConfigurationError("--database postgres:// needs a host, such as postgres://latchkey@127.0.0.1:5432/latchkey")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw ConfigurationError("--database postgres:// needs a database name after the host") }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = components.port ?? 5432
        self.username = components.user ?? "postgres"
        self.password = components.password
        self.database = database
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        self.sslMode = query["sslmode"] ?? "disable"
        guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(sslMode) else {
            throw ConfigurationError("sslmode must be one of disable, prefer, require, verify-ca, verify-full")
        }
        self.sslRootCertificate = query["sslrootcert"].flatMap { $0.isEmpty ? nil : $0 }
        if let timeout = query["connect_timeout"] {
            guard let seconds = Int(timeout), seconds > 0 else { throw ConfigurationError("connect_timeout must be a whole number of seconds") }
            self.connectTimeout = .seconds(seconds)
        }
    }

    /// The URL without its password, for logs and error messages.
    var redacted: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(username)@\(hostPart):\(port)/\(database)?sslmode=\(sslMode)"
    }

    /// The client configuration, with `maximumConnections` connections at most.
    func clientConfiguration(maximumConnections: Int) throws -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: try tls())
        configuration.options.maximumConnections = maximumConnections
        if let connectTimeout { configuration.options.connectTimeout = connectTimeout }
        return configuration
    }

    /// The single-connection form of the same settings, used to apply migrations.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: try connectionTLS())
        if let connectTimeout { configuration.options.connectTimeout = TimeAmount.seconds(connectTimeout.components.seconds) }
        return configuration
    }

    private func tlsConfiguration() throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case "verify-full": break
        case "verify-ca": tls.certificateVerification = .noHostnameVerification
        default: tls.certificateVerification = .none
        }
        if let sslRootCertificate {
            guard FileManager.default.isReadableFile(atPath: sslRootCertificate) else {
                throw ConfigurationError("sslrootcert \(sslRootCertificate) cannot be read")
            }
            tls.trustRoots = .file(sslRootCertificate)
        }
        return tls
    }

    private func tls() throws -> PostgresClient.Configuration.TLS {
        switch sslMode {
        case "disable": .disable
        case "allow", "prefer": .prefer(try tlsConfiguration())
        default: .require(try tlsConfiguration())
        }
    }

    private func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
        switch sslMode {
        case "disable": .disable
        case "allow", "prefer": .prefer(try NIOSSLContext(configuration: tlsConfiguration()))
        default: .require(try NIOSSLContext(configuration: tlsConfiguration()))
        }
    }
}
