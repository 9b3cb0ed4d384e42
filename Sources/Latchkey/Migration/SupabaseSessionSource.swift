import Foundation

/// Where supabase-swift kept its session: the storage an app configured for it (its
/// `AuthLocalStorage`), reduced to what an import needs — reading one item and removing it.
///
/// On Apple platforms supabase-swift's default is the keychain:
/// ``SupabaseKeychainSessionSource`` reads it exactly as supabase-swift wrote it. An app that
/// gave supabase-swift a storage of its own (on Linux it must: supabase-swift has no default
/// there) wraps that storage in a conformance of its own.
///
/// ```swift
/// struct DefaultsSource: SupabaseSessionSource {
///     func read(key: String) async throws -> Data? { UserDefaults.standard.data(forKey: key) }
///     func remove(key: String) async throws { UserDefaults.standard.removeObject(forKey: key) }
/// }
/// ```
public protocol SupabaseSessionSource: Sendable {
    /// The bytes stored under `key`, or `nil` when nothing is. Throw only when the storage
    /// cannot be read (then nothing is imported, and nothing is removed).
    func read(key: String) async throws -> Data?

    /// Removes the item stored under `key`. Removing an item that is not there is not an error.
    func remove(key: String) async throws
}

/// The storage keys under which supabase-swift keeps its session.
public enum SupabaseStorageKey {
    /// The key a `SupabaseClient` uses when its options set no `storageKey`:
    /// `sb-<project ref>-auth-token`, the project ref being the first dot-separated label of the
    /// Supabase URL's host (`https://abcdefgh.supabase.co` → `sb-abcdefgh-auth-token`; a
    /// self-hosted `https://auth.example.com` → `sb-auth-auth-token`). Used since
    /// supabase-swift v2.13.5; `nil` for a URL without a host.
    ///
    /// An app that set `SupabaseClientOptions.AuthOptions(storageKey:)` passes its own key
    /// instead.
    public static func `default`(supabaseURL: URL) -> String? {
        guard let host = supabaseURL.host(percentEncoded: false),
            let projectRef = host.split(separator: ".").first
        else { return nil }
        return "sb-\(projectRef)-auth-token"
    }

    /// The key of an `AuthClient` made directly (not through `SupabaseClient`) without a
    /// `storageKey`, since supabase-swift v2.13.5.
    public static let authClient = "supabase.auth.token"

    /// The one key of every client before supabase-swift v2.13.5 (1.x, 2.0 to 2.13.4). Later
    /// versions move an item found here to the configured key when they read the session; the
    /// import reads it when the configured key holds nothing.
    public static let legacy = "supabase.session"
}
