// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Tests read many modules' members (NIOHTTP1, HTTPTypes...) through their helpers.
let testSwiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "Latchkey",
    // The floors the code is written for. tvOS, watchOS and visionOS are declared too, so that no
    // platform builds with a lower default floor (scripts/check-portability.sh checks this).
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        // The session engine: credential stores, SessionManager, backends, errors.
        .library(name: "Latchkey", targets: ["Latchkey"]),
        // The app-flow models on top of the session engine: launch routing, lock, forms, data.
        .library(name: "LatchkeyAppFlow", targets: ["LatchkeyAppFlow"]),
        // The auth server, GoTrue wire-compatible.
        .library(name: "LatchkeyServer", targets: ["LatchkeyServer"]),
        // GoTrue's wire types, shared by the server and the client.
        .library(name: "LatchkeyWire", targets: ["LatchkeyWire"]),
        // For tests: the in-process server with a temporary database, manual clocks, log capture.
        .library(name: "LatchkeyTesting", targets: ["LatchkeyTesting"]),
        // The command: `latchkey serve` and the terminal app.
        .executable(name: "latchkey", targets: ["LatchkeyCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
        // X.509 for WebAuthn `packed` attestation with a certificate chain (already in the graph via jwt-kit).
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // The reference Argon2 implementation, for the server's imported Argon2 password hashes
        // (Debian's libargon2-dev, Homebrew's argon2). The server only; Linux and macOS only.
        .systemLibrary(
            name: "CArgon2",
            pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"]), .brew(["argon2"])]
        ),
        .target(
            name: "LatchkeyWire",
            dependencies: [
                // JWS signatures: ES256 and RS256 keys from a JWKS, for the client and the server.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // QR codes for TOTP enrolment (the server's `qr_code` SVG, the command's terminal code).
        // Not a product: LatchkeyServer and LatchkeyCommand use it.
        .target(
            name: "LatchkeyQRCode",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Latchkey",
            dependencies: [
                "LatchkeyWire",
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA public keys (RS256) for AccessTokenVerifier.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The privacy manifest App Store uploads need for the required-reason APIs the
            // library calls (UserDefaults, stat): see Documentation/ApplePlatforms.md.
            resources: [.copy("Resources/PrivacyInfo.xcprivacy")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LatchkeyAppFlow",
            dependencies: [
                "Latchkey",
                "LatchkeyWire",  // the email rule (package access; nothing of it is public here)
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/PrivacyInfo.xcprivacy")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LatchkeyServer",
            dependencies: [
                "LatchkeyWire",
                "LatchkeyQRCode",  // the SVG QR code of a TOTP factor
                // Argon2 password hashes brought from other systems (Security/PasswordHashes/Argon2Hash.swift).
                .target(name: "CArgon2", condition: .when(platforms: [.linux, .macOS])),
                .product(name: "Hummingbird", package: "hummingbird"),
                // MaximumAvailableConnections (the --max-connections limit)
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C interface: the commit probe's `PRAGMA data_version` (Storage/SQLite/).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                // RS256 JWT keys; RS256 WebAuthn credential keys.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                // WebAuthn `packed` attestation: the x5c leaf certificate (Passkeys/WebAuthn/).
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // Identity providers' discovery, keys and token endpoints (Providers/).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // The SMTP client (SMTP/): STARTTLS and implicit TLS.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Mustache", package: "swift-mustache"),
                // GET /metrics: counters and histograms through an injected MetricsFactory,
                // rendered from the server's own Prometheus registry (no global bootstrap).
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/pages")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LatchkeyTesting",
            dependencies: [
                "Latchkey",
                "LatchkeyServer",
                "LatchkeyWire",  // base64url and the OAuth digests the test identity provider puts in its tokens
                // TestIdentityProvider: an OpenID provider's discovery document and keys, served locally.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                // The test identity provider's and the software passkey's keys and signatures.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // IOError: a restart tells "address already in use" from other failures.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "LatchkeyCommand",
            dependencies: [
                "Latchkey",
                "LatchkeyWire",  // the email rule
                "LatchkeyServer",
                "LatchkeyQRCode",  // latchkey mfa enroll: the QR code in the terminal
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),  // IOError: serve's start-up failures in words
                // `latchkey login --provider`: the one-request listener for the browser's redirect.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                // `latchkey backup`: SQLite's online backup API.
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // Fixtures the client test targets share (not a product): the server wrapper, doubles, waits.
        .target(
            name: "LatchkeyTestSupport",
            dependencies: [
                "Latchkey", "LatchkeyServer", "LatchkeyTesting", .product(name: "Logging", package: "swift-log"),
                // TCPProxy: a relay tests can cut, or hold to keep a call in flight.
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                // SupabaseAuthFixture: a GoTrue-shaped auth schema on the tests' PostgreSQL.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // FakeSiteverify: a CAPTCHA provider's siteverify on loopback.
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/LatchkeyTestSupport",
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "LatchkeyTestingTests",
            dependencies: ["LatchkeyTesting", "Latchkey", "LatchkeyServer", .product(name: "Logging", package: "swift-log")],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "LatchkeyWireTests",
            dependencies: [
                "LatchkeyWire", "LatchkeyTestSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "LatchkeyQRCodeTests",
            dependencies: ["LatchkeyQRCode"],
            // Run by the decoder round-trip test with python3 (zxing-cpp, segno), not built.
            exclude: ["Support/decode_qr.py"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "LatchkeyTests",
            dependencies: ["Latchkey", "LatchkeyServer", "LatchkeyTesting", "LatchkeyTestSupport", "LatchkeyWire"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "LatchkeyAppFlowTests",
            dependencies: ["LatchkeyAppFlow", "Latchkey", "LatchkeyServer", "LatchkeyTesting", "LatchkeyTestSupport"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "LatchkeyCommandTests",
            dependencies: ["LatchkeyCommand", "Latchkey", "LatchkeyServer", "LatchkeyTesting", "LatchkeyTestSupport"],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "LatchkeyServerTests",
            dependencies: [
                "LatchkeyServer",
                "LatchkeyWire",
                "LatchkeyTesting",
                "LatchkeyQRCode",
                // ChildProcess only (the SMTP tests spawn a Python SMTP server).
                "LatchkeyTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Fault injection into a SQLite store's own database.
                .product(name: "GRDB", package: "GRDB.swift"),
                // WebAuthn packed attestation certificates made by the tests.
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            // Run by the SMTP tests with Debian's python3-aiosmtpd, not built.
            exclude: ["Support/smtp_test_server.py", "Support/mail_client.py"],
            swiftSettings: testSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
