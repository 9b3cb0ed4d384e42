import Foundation

/// Where Latchkey keeps its own small files by default: a `dev.latchkey` directory in
/// Application Support (erased with the app), or in the temporary directory where a platform
/// has no Application Support directory.
///
/// On iOS, iPadOS, watchOS, visionOS and tvOS, and in a sandboxed Mac app, Application Support is
/// the app's own container. Outside the sandbox on macOS it is the user's
/// `~/Library/Application Support`, shared by every app: there the directory is named after the
/// app's bundle identifier (`Application Support/<bundle identifier>/dev.latchkey/`), so two
/// Latchkey apps never share an install marker or a flag. On macOS (and Mac Catalyst) every app
/// uses that path (sandboxed or not: the container is per app anyway); earlier releases used
/// `Application Support/dev.latchkey/` there, which ``legacyLatchkeyFile(_:)`` names.
package enum ApplicationSupport {
    /// `Application Support/dev.latchkey/<name>`, or on macOS
    /// `Application Support/<bundle identifier>/dev.latchkey/<name>`.
    package static func latchkeyFile(_ name: String) -> URL {
        latchkeyDirectory(base: supportDirectory, bundleIdentifier: Bundle.main.bundleIdentifier, perApp: isMacOS)
            .appendingPathComponent(name)
    }

    /// Where earlier releases kept `name` when it differs from ``latchkeyFile(_:)`` (macOS:
    /// `Application Support/dev.latchkey/<name>`); `nil` elsewhere.
    package static func legacyLatchkeyFile(_ name: String) -> URL? {
        let current = latchkeyFile(name)
        let legacy = latchkeyDirectory(base: supportDirectory, bundleIdentifier: nil, perApp: false)
            .appendingPathComponent(name)
        return legacy.standardizedFileURL == current.standardizedFileURL ? nil : legacy
    }

    /// Latchkey's directory under `base`: `base/dev.latchkey`, or `base/<bundle
    /// identifier>/dev.latchkey` when `perApp` and the bundle identifier is known. A bundle
    /// identifier is letters, digits, `-` and `.`; anything else (which no valid identifier has)
    /// becomes `_`, so it can never name another directory.
    package static func latchkeyDirectory(base: URL, bundleIdentifier: String?, perApp: Bool) -> URL {
        guard perApp, let bundleIdentifier, !bundleIdentifier.isEmpty else {
            return base.appendingPathComponent("dev.latchkey")
        }
        var component = String(
            bundleIdentifier.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "-", ".": Character(scalar)
                default: "_"
                }
            })
        if component.allSatisfy({ $0 == "." }) { component = "_" + component }
        return base.appendingPathComponent(component).appendingPathComponent("dev.latchkey")
    }

    private static var supportDirectory: URL {
        FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
    }

    private static var isMacOS: Bool {
        #if os(macOS) || targetEnvironment(macCatalyst)
        true
        #else
        false
        #endif
    }
}
