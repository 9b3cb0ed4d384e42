// Apple platforms only: not compiled on Linux, so not compiled by CI. A thin shell: every
// decision (which call, update or add or replace, retry on a duplicate) is `KeychainEngine`'s,
// compiled and tested everywhere. Written against the Security framework's documented
// `SecItemCopyMatching(_:_:)`, `SecItemUpdate(_:_:)`, `SecItemAdd(_:_:)`, `SecItemDelete(_:)`
// (all `(CFDictionary...) -> OSStatus`), the generic-password attributes `kSecAttrService`,
// `kSecAttrAccount`, `kSecAttrAccessGroup`, `kSecAttrSynchronizable`, `kSecAttrAccessible`,
// `kSecAttrGeneric`, `kSecUseDataProtectionKeychain` (iOS 13, macOS 10.15), and
// `kSecUseAuthenticationContext` with an `LAContext` whose `interactionNotAllowed` is `true`
// (iOS 11, macOS 10.13), so no keychain call ever shows authentication UI.
#if canImport(Security)
import Foundation
import Security
#if canImport(LocalAuthentication) && (os(iOS) || os(macOS) || os(visionOS))
import LocalAuthentication
#endif

/// Credentials in the Apple keychain, as generic-password items.
///
/// Safe defaults: readable only while the device is unlocked
/// (`kSecAttrAccessibleWhenUnlockedThisDeviceOnly`), never synchronised to iCloud
/// (`kSecAttrSynchronizable` false), never restored to another device. Apps that refresh in the
/// background, and apps whose extensions share the session, choose
/// ``Accessibility/afterFirstUnlockThisDeviceOnly``
/// (``backgroundRefresh(service:accessGroup:usesDataProtectionKeychain:)``). An app and its
/// extensions share items through an ``accessGroup``.
///
/// With the default, a refresh that completes while the device is locked cannot be written
/// (``StorageError/locked``): ``SessionManager`` keeps the new session in memory, stores it
/// when protected data becomes available or the app becomes active, and refreshes no further
/// until then while the access token is valid. The session survives as long as the process
/// does; with ``Accessibility/afterFirstUnlockThisDeviceOnly`` the write succeeds at once.
///
/// Items never carry a biometric access control: a background refresh must read and write the
/// session without a prompt, and a biometry-bound item would either prompt or fail. Protect the
/// app with an app lock (LatchkeyAppFlow's `AppLock`) instead. Every call is made without
/// authentication UI.
///
/// Saving keeps each item's protection as configured: an item written with another
/// accessibility (the app changed it) is rewritten with the new one, an item added at the same
/// moment by another process (`errSecDuplicateItem`) is updated instead. The keychain's blocking
/// calls run on a serial queue of their own, never on Swift's cooperative threads.
///
/// Errors: `errSecItemNotFound` loads as `nil`; `errSecInteractionNotAllowed` (device locked) as
/// ``StorageError/locked``; `errSecAuthFailed`/`errSecUserCanceled` as
/// ``StorageError/authenticationFailed``; anything else as ``StorageError/status(_:operation:)``
/// with the `OSStatus`.
public struct KeychainCredentialStore: CredentialStore {
    /// When the item can be read.
    public enum Accessibility: Sendable {
        /// Only while the device is unlocked, this device only (default). Reads and writes
        /// while the device is locked fail with ``StorageError/locked``: a refresh in the
        /// background is then kept in memory until the device is unlocked.
        case whenUnlockedThisDeviceOnly
        /// After the first unlock since boot, this device only: for apps that refresh in the
        /// background (background tasks, pushes, audio or location apps) and extensions that run
        /// while the device is locked. Reads and writes fail only before the first unlock after
        /// a reboot.
        case afterFirstUnlockThisDeviceOnly

        var model: KeychainAccessibility {
            switch self {
            case .whenUnlockedThisDeviceOnly: .whenUnlockedThisDeviceOnly
            case .afterFirstUnlockThisDeviceOnly: .afterFirstUnlockThisDeviceOnly
            }
        }
    }

    /// The `kSecAttrService` of the items.
    public let service: String
    /// The keychain access group shared with extensions, or `nil` for the app's default group.
    public let accessGroup: String?
    /// When items can be read.
    public let accessibility: Accessibility
    /// Always `false`: items are no longer bound to biometrics (see the type's discussion).
    public let requiresBiometry: Bool
    /// Whether to use the data-protection keychain on macOS (`kSecUseDataProtectionKeychain`),
    /// which honours the accessibility classes like iOS does. It needs a keychain access group
    /// entitlement, which an unsigned command-line tool lacks: pass `false` there. Default `true`.
    public let usesDataProtectionKeychain: Bool

    private var engine: KeychainEngine {
        KeychainEngine(
            driver: SecItemKeychain(), service: service, accessGroup: accessGroup,
            usesDataProtectionKeychain: usesDataProtectionKeychain,
            protection: KeychainProtection(accessibility: accessibility.model))
    }

    public init(
        service: String, accessGroup: String? = nil,
        accessibility: Accessibility = .whenUnlockedThisDeviceOnly,
        usesDataProtectionKeychain: Bool = true
    ) {
        self.service = service
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.requiresBiometry = false
        self.usesDataProtectionKeychain = usesDataProtectionKeychain
    }

    /// A store for an app that refreshes the session while the device may be locked:
    /// ``Accessibility/afterFirstUnlockThisDeviceOnly``, so every refresh after the first
    /// unlock since boot is stored at once. An item written earlier with the default is
    /// rewritten with this class at the next save.
    public static func backgroundRefresh(
        service: String, accessGroup: String? = nil, usesDataProtectionKeychain: Bool = true
    ) -> KeychainCredentialStore {
        KeychainCredentialStore(
            service: service, accessGroup: accessGroup, accessibility: .afterFirstUnlockThisDeviceOnly,
            usesDataProtectionKeychain: usesDataProtectionKeychain)
    }

    /// Biometry-bound items are no longer written: a background refresh could not read or
    /// write them without a prompt. `requiresBiometry` is ignored; an item an earlier version
    /// bound to biometrics is rewritten without it at the next save (until then it reads as
    /// ``StorageError/locked``, and nothing is wiped). Gate the app with an app lock instead.
    @available(
        *, deprecated, message: "Items are no longer bound to biometrics; requiresBiometry is ignored. Use an app lock (LatchkeyAppFlow's AppLock)."
    )
    public init(
        service: String, accessGroup: String? = nil,
        accessibility: Accessibility = .whenUnlockedThisDeviceOnly, requiresBiometry: Bool,
        usesDataProtectionKeychain: Bool = true
    ) {
        self.init(
            service: service, accessGroup: accessGroup, accessibility: accessibility,
            usesDataProtectionKeychain: usesDataProtectionKeychain)
    }

    public func load(key: String) async throws -> Data? {
        try await engine.load(key: key)
    }

    public func save(_ data: Data, key: String) async throws {
        try await engine.save(data, key: key)
    }

    public func delete(key: String) async throws {
        try await engine.delete(key: key)
    }
}

/// `KeychainCall`s as `SecItem` calls (on `KeychainEngine.queue`).
struct SecItemKeychain: KeychainDriver {
    func perform(_ call: KeychainCall) -> KeychainOutcome {
        switch call {
        case .readAttributes(let item):
            let (status, result) = Self.copyOne(Self.query(item), returning: kSecReturnAttributes)
            guard status == errSecSuccess else { return Self.outcome(status) }
            guard let attributes = result as? [String: Any] else { return .undecodable }
            return .attributes(
                KeychainItemAttributes(
                    accessibility: Self.accessibility(attributes[kSecAttrAccessible as String]),
                    protectionTag: attributes[kSecAttrGeneric as String] as? Data))
        case .readData(let item):
            return Self.readData(Self.query(item))
        case .update(let item, let data, let protection):
            var query = Self.query(item)
            Self.forbidInteraction(&query)
            var attributes: [String: Any] = [kSecValueData as String: data]
            if let protection {
                attributes[kSecAttrGeneric as String] = protection.tag
                if item.usesDataProtectionKeychain {
                    attributes[kSecAttrAccessible as String] = Self.attribute(protection.accessibility)
                }
            }
            return Self.outcome(SecItemUpdate(query as CFDictionary, attributes as CFDictionary))
        case .add(let item, let data, let protection):
            var attributes = Self.query(item)
            attributes[kSecValueData as String] = data
            attributes[kSecAttrAccessible as String] = Self.attribute(protection.accessibility)
            attributes[kSecAttrGeneric as String] = protection.tag
            return Self.outcome(SecItemAdd(attributes as CFDictionary, nil))
        case .delete(let item):
            return Self.outcome(SecItemDelete(Self.query(item) as CFDictionary))
        }
    }

    /// The data of the one item matching `query`, read without user interaction.
    static func readData(_ query: [String: Any]) -> KeychainOutcome {
        let (status, result) = copyOne(query, returning: kSecReturnData)
        guard status == errSecSuccess else { return outcome(status) }
        guard let data = result as? Data else { return .undecodable }
        return .data(data)
    }

    /// `SecItemCopyMatching` for the one item matching `query`, without user interaction,
    /// returning what `returnKey` (`kSecReturnData` or `kSecReturnAttributes`) asks for.
    static func copyOne(_ query: [String: Any], returning returnKey: CFString) -> (status: OSStatus, result: CFTypeRef?) {
        var query = query
        query[returnKey as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        Self.forbidInteraction(&query)
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    /// The attributes that identify `item`.
    static func query(_ item: KeychainItem) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: item.service,
            kSecAttrAccount as String: item.account,
            kSecAttrSynchronizable as String: kCFBooleanFalse as Any,
        ]
        if item.usesDataProtectionKeychain { query[kSecUseDataProtectionKeychain as String] = true }
        if let accessGroup = item.accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    /// Makes an item that needs authentication answer `errSecInteractionNotAllowed` instead of
    /// prompting.
    static func forbidInteraction(_ query: inout [String: Any]) {
        #if canImport(LocalAuthentication) && (os(iOS) || os(macOS) || os(visionOS))
        let context = LAContext()
        context.interactionNotAllowed = true
        query[kSecUseAuthenticationContext as String] = context
        #endif
    }

    static func attribute(_ accessibility: KeychainAccessibility) -> CFString {
        switch accessibility {
        case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        }
    }

    static func accessibility(_ value: Any?) -> KeychainAccessibility? {
        guard let value = value as? String else { return nil }
        if value == kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String { return .whenUnlockedThisDeviceOnly }
        if value == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String { return .afterFirstUnlockThisDeviceOnly }
        return nil
    }

    static func outcome(_ status: OSStatus) -> KeychainOutcome {
        switch status {
        case errSecSuccess: .success
        case errSecItemNotFound: .itemNotFound
        case errSecDuplicateItem: .duplicateItem
        case errSecInteractionNotAllowed: .interactionNotAllowed
        case errSecUserCanceled, errSecAuthFailed: .authenticationFailed
        case errSecDecode: .undecodable
        case errSecMissingEntitlement, errSecNotAvailable, errSecNoSuchKeychain: .unavailable(status: status)
        default: .failure(status: status)
        }
    }
}
#endif
