// Apple platforms only: not compiled on Linux, so not compiled by CI. A thin shell over
// `SupabaseKeychainQuery` (compiled and tested everywhere). Written against the Security
// framework's documented `SecItemCopyMatching(_:_:)` (`(CFDictionary, UnsafeMutablePointer<
// CFTypeRef?>?) -> OSStatus`; with `kSecReturnData` true and `kSecMatchLimit`
// `kSecMatchLimitOne` the result is the item's data) and `SecItemDelete(_:)`
// (`(CFDictionary) -> OSStatus`, deleting every item matching the query), the generic-password
// attributes `kSecClass`/`kSecClassGenericPassword`, `kSecAttrService`, `kSecAttrAccount`,
// `kSecAttrAccessGroup`, and `kSecUseDataProtectionKeychain` (iOS 13, macOS 10.15; only macOS
// looks at it). Reads run without authentication UI (`SecItemKeychain.forbidInteraction`).
#if canImport(Security)
import Foundation
import Security

/// The session supabase-swift kept in the keychain with its default storage,
/// `KeychainLocalStorage`: read and removed with exactly the query supabase-swift uses.
///
/// The defaults match supabase-swift v2.x (through v2.55.1): service `"supabase.gotrue.swift"`,
/// no access group, the macOS file-based keychain. Pass the `service` and `accessGroup` the app
/// gave `KeychainLocalStorage(service:accessGroup:)`, if it gave any. The app must still have
/// that access group — the same team and the same `keychain-access-groups` entitlement — to
/// see the item at all.
///
/// - supabase-swift's main branch (the coming v3, unreleased when this was written) defaults the
///   service to the app's bundle identifier instead: pass `service: Bundle.main.bundleIdentifier`
///   for a session it wrote.
/// - `usesDataProtectionKeychain` (macOS only): `true` for a session supabase-swift v2.14.1 to
///   v2.20.2 wrote (they set `kSecUseDataProtectionKeychain`), or a later one configured to.
///
/// A missing item reads as `nil`; a locked device as ``StorageError/locked``; any other
/// keychain failure as a ``StorageError``. Removing a missing item succeeds. The keychain's
/// blocking calls run on Latchkey's keychain queue, never on Swift's cooperative threads.
public struct SupabaseKeychainSessionSource: SupabaseSessionSource {
    /// supabase-swift's default `kSecAttrService`.
    public static let defaultService = "supabase.gotrue.swift"

    /// The `kSecAttrService` of the item; `nil` for none (`KeychainLocalStorage(service: nil)`).
    public let service: String?
    /// The `kSecAttrAccessGroup` the app gave supabase-swift, or `nil` for the app's default.
    public let accessGroup: String?
    /// Whether to search the macOS data-protection keychain (`kSecUseDataProtectionKeychain`).
    public let usesDataProtectionKeychain: Bool

    public init(
        service: String? = SupabaseKeychainSessionSource.defaultService, accessGroup: String? = nil,
        usesDataProtectionKeychain: Bool = false
    ) {
        self.service = service
        self.accessGroup = accessGroup
        self.usesDataProtectionKeychain = usesDataProtectionKeychain
    }

    public func read(key: String) async throws -> Data? {
        let query = item(key)
        return try await Self.onQueue { () throws(StorageError) -> Data? in
            try SupabaseKeychainQuery.readResult(SecItemKeychain.readData(Self.dictionary(query)))
        }
    }

    public func remove(key: String) async throws {
        let query = item(key)
        try await Self.onQueue { () throws(StorageError) in
            let status = SecItemDelete(Self.dictionary(query) as CFDictionary)
            try SupabaseKeychainQuery.removeResult(SecItemKeychain.outcome(status))
        }
    }

    private func item(_ key: String) -> SupabaseKeychainQuery {
        SupabaseKeychainQuery(
            service: service, account: key, accessGroup: accessGroup, usesDataProtectionKeychain: usesDataProtectionKeychain)
    }

    /// supabase-swift's query for the item: class, service (when set), account, access group
    /// (when set), and the data-protection key when asked for.
    static func dictionary(_ query: SupabaseKeychainQuery) -> [String: Any] {
        var dictionary: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrAccount as String: query.account,
        ]
        if let service = query.service { dictionary[kSecAttrService as String] = service }
        if let accessGroup = query.accessGroup { dictionary[kSecAttrAccessGroup as String] = accessGroup }
        if query.usesDataProtectionKeychain { dictionary[kSecUseDataProtectionKeychain as String] = true }
        return dictionary
    }

    private static func onQueue<Value: Sendable>(_ body: @escaping @Sendable () throws(StorageError) -> Value) async throws -> Value {
        let result: Result<Value, StorageError> = await withCheckedContinuation { continuation in
            KeychainEngine.queue.async {
                continuation.resume(returning: Result { () throws(StorageError) -> Value in try body() })
            }
        }
        return try result.get()
    }
}
#endif
