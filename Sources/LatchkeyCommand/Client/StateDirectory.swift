import Foundation

/// Where the client commands keep their state, and the layout inside it:
///
/// ```
/// $LATCHKEY_HOME/                       0700 (default $XDG_CONFIG_HOME/latchkey or ~/.config/latchkey)
///   profiles/<name>/                    0700
///     profile.json                      0600  server URL, store kind, email, sign-in time: no secrets
///     refresh.lock                      0600  the cross-process refresh lock
///     credentials/                      0700  encrypted file store only
///       session.sealed, .key            0600
/// ```
///
/// Tokens live only in the credential store: the desktop keyring, or AES-GCM sealed files.
struct StateDirectory: Sendable, Equatable {
    /// The root directory.
    let root: URL

    /// The root for `environment`: `LATCHKEY_HOME`, else `$XDG_CONFIG_HOME/latchkey`, else
    /// `$HOME/.config/latchkey`.
    static func resolve(environment: [String: String]) -> StateDirectory {
        if let home = environment["LATCHKEY_HOME"], !home.isEmpty {
            return StateDirectory(root: URL(fileURLWithPath: home, isDirectory: true).standardizedFileURL)
        }
        // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return StateDirectory(
                root: URL(fileURLWithPath: config, isDirectory: true).appendingPathComponent("latchkey", isDirectory: true).standardizedFileURL)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return StateDirectory(
            root: URL(fileURLWithPath: home, isDirectory: true)
                .appendingPathComponent(".config/latchkey", isDirectory: true).standardizedFileURL)
    }

    /// The directory of profile `name`.
    func profileDirectory(_ name: String) -> URL {
        root.appendingPathComponent("profiles", isDirectory: true).appendingPathComponent(name, isDirectory: true)
    }

    /// Creates the root, `profiles/` and the profile's directory, owner-only (0700). Existing
    /// `profiles/` and profile directories are tightened to 0700; an existing root is left as
    /// it is (it may be a directory the user chose for other things too).
    func prepareProfileDirectory(_ name: String) throws -> URL {
        try Self.makeDirectory(root, tighten: false)
        try Self.makeDirectory(root.appendingPathComponent("profiles", isDirectory: true), tighten: true)
        let directory = profileDirectory(name)
        try Self.makeDirectory(directory, tighten: true)
        return directory
    }

    /// Creates `url` with mode 0700 if missing; with `tighten`, resets an existing one to 0700.
    static func makeDirectory(_ url: URL, tighten: Bool) throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw ClientFailure(.other, "\(url.path) exists and is not a directory.")
            }
            if tighten { try? manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path) }
            return
        }
        do {
            try manager.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ClientFailure(.other, "Cannot create \(url.path).", hint: "Check its permissions, or set LATCHKEY_HOME to a writable directory.")
        }
    }
}

/// Profile names: `--profile NAME` (or `LATCHKEY_PROFILE`), one signed-in account each.
enum ProfileName {
    /// The profile used when none is named.
    static let defaultName = "default"

    /// Whether `name` is usable as a directory name: letters, digits, `.`, `_`, `-`; at most 64
    /// characters; not starting with a dot.
    static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
    }

    /// ` --profile NAME` for hints, or nothing for the default profile.
    static func flag(_ name: String) -> String {
        name == defaultName ? "" : " --profile \(name)"
    }

    /// ` (profile "NAME")` for messages, or nothing for the default profile.
    static func suffix(_ name: String) -> String {
        name == defaultName ? "" : " (profile \"\(name)\")"
    }
}
