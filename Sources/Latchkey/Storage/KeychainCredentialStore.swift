#if canImport(Security)
import Foundation
import Security

/// Credentials in the Apple keychain, as generic-password items.
///
/// Safe defaults: readable only while the device is unlocked
/// (`kSecAttrAccessibleWhenUnlockedThisDeviceOnly`), never synchronised to iCloud
/// (`kSecAttrSynchronizable` false), never restored to another device. Apps that refresh in the
/// background choose ``Accessibility/afterFirstUnlockThisDeviceOnly``. An app and its extensions
/// share items through an ``accessGroup``. With ``requiresBiometry`` the item is bound to the
/// currently enrolled biometrics (`.biometryCurrentSet`) and reading it prompts.
///
/// Errors: `errSecItemNotFound` loads as `nil`; `errSecInteractionNotAllowed` (device locked) as
/// ``StorageError/locked``; a cancelled or failed prompt as ``StorageError/authenticationFailed``;
/// anything else as ``StorageError/status(_:operation:)`` with the `OSStatus`.
public struct KeychainCredentialStore: CredentialStore {
    /// When the item can be read.
    public enum Accessibility: Sendable {
        /// Only while the device is unlocked, this device only (default).
        case whenUnlockedThisDeviceOnly
        /// After the first unlock since boot, this device only (background refresh).
        case afterFirstUnlockThisDeviceOnly

        var attribute: CFString {
            switch self {
            case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            }
        }
    }

    /// The `kSecAttrService` of the items.
    public let service: String
    /// The keychain access group shared with extensions, or `nil` for the app's default group.
    public let accessGroup: String?
    /// When items can be read.
    public let accessibility: Accessibility
    /// Whether items are bound to the current biometric enrolment.
    public let requiresBiometry: Bool
    /// Whether to use the data-protection keychain on macOS (`kSecUseDataProtectionKeychain`),
    /// which honours the accessibility classes like iOS does. It needs a keychain access group
    /// entitlement, which an unsigned command-line tool lacks: pass `false` there. Default `true`.
    public let usesDataProtectionKeychain: Bool

    public init(
        service: String, accessGroup: String? = nil,
        accessibility: Accessibility = .whenUnlockedThisDeviceOnly, requiresBiometry: Bool = false,
        usesDataProtectionKeychain: Bool = true
    ) {
        self.service = service
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.requiresBiometry = requiresBiometry
        self.usesDataProtectionKeychain = usesDataProtectionKeychain
    }

    private func baseQuery(key: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: key,
            kSecAttrSynchronizable as String: kCFBooleanFalse as Any,
        ]
        if usesDataProtectionKeychain { query[kSecUseDataProtectionKeychain as String] = true }
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    public func load(key: String) async throws -> Data? {
        var query = baseQuery(key: key)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess:
            guard let data = result as? Data else {
                throw StorageError.corrupted(reason: "keychain item has no data")
            }
            return data
        case errSecItemNotFound:
            return nil
        default:
            throw Self.error(status, operation: "SecItemCopyMatching")
        }
    }

    public func save(_ data: Data, key: String) async throws {
        let query = baseQuery(key: key)
        let updateStatus = SecItemUpdate(query as CFDictionary, [kSecValueData as String: data] as CFDictionary)
        switch updateStatus {
        case errSecSuccess:
            return
        case errSecItemNotFound:
            break
        default:
            throw Self.error(updateStatus, operation: "SecItemUpdate")
        }
        var attributes = query
        attributes[kSecValueData as String] = data
        if requiresBiometry {
            var error: Unmanaged<CFError>?
            guard let access = SecAccessControlCreateWithFlags(
                nil, accessibility.attribute, .biometryCurrentSet, &error)
            else {
                error?.release()
                throw StorageError.unavailable(reason: "cannot create biometric access control")
            }
            attributes[kSecAttrAccessControl as String] = access
        } else {
            attributes[kSecAttrAccessible as String] = accessibility.attribute
        }
        let addStatus = SecItemAdd(attributes as CFDictionary, nil)
        guard addStatus == errSecSuccess else { throw Self.error(addStatus, operation: "SecItemAdd") }
    }

    public func delete(key: String) async throws {
        let status = SecItemDelete(baseQuery(key: key) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw Self.error(status, operation: "SecItemDelete")
        }
    }

    static func error(_ status: OSStatus, operation: String) -> StorageError {
        switch status {
        case errSecInteractionNotAllowed: .locked
        case errSecUserCanceled, errSecAuthFailed: .authenticationFailed
        case errSecDecode: .corrupted(reason: "keychain item cannot be decoded")
        case errSecMissingEntitlement, errSecNotAvailable, errSecNoSuchKeychain:
            .unavailable(reason: "keychain unavailable (OSStatus \(status))")
        default: .status(status, operation: operation)
        }
    }
}
#endif
