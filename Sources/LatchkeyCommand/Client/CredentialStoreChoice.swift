import ArgumentParser
import Foundation
import Latchkey

/// `--store auto|keyring|file`: where a sign-in keeps the session.
enum StoreOption: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// The desktop keyring when one answers, otherwise the encrypted file store.
    case auto
    /// The desktop keyring (Secret Service: GNOME Keyring, KWallet, KeePassXC…).
    case keyring
    /// AES-GCM sealed files in the profile directory, the key in a separate 0600 file.
    case file
}

/// The credential store a profile's session actually lives in (recorded in `profile.json`).
enum CredentialStoreKind: String, Codable, Sendable {
    case keyring
    case file
}

/// A credential store opened for one profile, with the key the session is stored under.
struct ProfileCredentials: Sendable {
    /// Which kind of store this is.
    let kind: CredentialStoreKind
    /// The store.
    let store: any CredentialStore
    /// The key of the session in `store`.
    let key: String
    /// Where the credentials are, for `status`.
    let location: String

    /// The Secret Service `service` attribute of the items the command stores.
    static let keyringService = "dev.latchkey.cli"

    /// Opens the store of `kind` for the profile in `directory`.
    ///
    /// Keyring items are named after the profile and the state directory, so two
    /// `LATCHKEY_HOME`s never share a session. The file store keeps its key in its own 0600
    /// file, so it works without any keyring (over SSH, on servers).
    static func open(
        _ kind: CredentialStoreKind, profile: String, profileDirectory: URL, home: StateDirectory,
        keyring: @Sendable (String) -> any CredentialStore
    ) -> ProfileCredentials {
        switch kind {
        case .keyring:
            return ProfileCredentials(
                kind: .keyring, store: keyring(keyringService), key: "session:\(profile)@\(home.root.path)",
                location: "desktop keyring (Secret Service)")
        case .file:
            let directory = profileDirectory.appendingPathComponent("credentials", isDirectory: true)
            let store = EncryptedFileCredentialStore(directory: directory, keySource: .keyFile(directory.appendingPathComponent(".key")))
            return ProfileCredentials(kind: .file, store: store, key: "session", location: "encrypted file (\(directory.path))")
        }
    }
}
