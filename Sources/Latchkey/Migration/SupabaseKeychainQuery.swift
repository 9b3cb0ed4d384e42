import Foundation

// The decisions of `SupabaseKeychainSessionSource` (Apple platforms only, in
// SupabaseKeychainSessionSource.swift), compiled and tested on every platform: which item is
// meant, and what each keychain answer means for a read and for a removal.

/// The keychain item supabase-swift's `KeychainLocalStorage` keeps a key's value in, as its
/// source defines it (v2.55.1, `Sources/Auth/Internal/Keychain.swift`): a generic password
/// (`kSecClassGenericPassword`) whose `kSecAttrAccount` is the storage key, with
/// `kSecAttrService` when a service is set (supabase-swift's default:
/// `"supabase.gotrue.swift"`) and `kSecAttrAccessGroup` when an access group is set. No
/// `kSecAttrSynchronizable` and, since v2.20.3, no `kSecUseDataProtectionKeychain` (v2.14.1 to
/// v2.20.2 set it to `true`; it only matters on macOS).
struct SupabaseKeychainQuery: Sendable, Hashable {
    var service: String?
    var account: String
    var accessGroup: String?
    var usesDataProtectionKeychain: Bool

    /// What `SecItemCopyMatching` (returning the data of one item) answered, as a read:
    /// the bytes, `nil` for no item, or why the keychain could not be read.
    static func readResult(_ outcome: KeychainOutcome) throws(StorageError) -> Data? {
        switch outcome {
        case .data(let data): return data
        case .itemNotFound: return nil
        default: throw KeychainEngine.error(outcome, operation: "SecItemCopyMatching")
        }
    }

    /// What `SecItemDelete` answered, as a removal: done when the item is gone, whether it was
    /// there or not.
    static func removeResult(_ outcome: KeychainOutcome) throws(StorageError) {
        switch outcome {
        case .success, .itemNotFound: return
        default: throw KeychainEngine.error(outcome, operation: "SecItemDelete")
        }
    }
}
