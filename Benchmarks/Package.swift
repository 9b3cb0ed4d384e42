// swift-tools-version:6.1
// Benchmarks live in their own package (as Hummingbird's do) so the main package's build and
// CI never pay for them. `server.sh` drives a release build of `latchkey serve` with wrk and
// measures the ceilings its ratios are taken against (bcrypt, raw-SQLite rotation).
import PackageDescription

let package = Package(
    name: "LatchkeyBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "bcrypt-ceiling",
            dependencies: [.product(name: "HummingbirdBcrypt", package: "hummingbird-auth")],
            path: "Sources/BcryptCeiling"
        ),
        .executableTarget(
            name: "rotation-ceiling",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")],
            path: "Sources/RotationCeiling"
        ),
    ],
    swiftLanguageModes: [.v6]
)
