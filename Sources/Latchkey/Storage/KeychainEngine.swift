import Foundation

// The decisions of `KeychainCredentialStore` — which keychain call to make, with what, and what
// to do with each answer — as plain values, compiled and tested on every platform. The Apple
// shell (`SecItemKeychain`, in KeychainCredentialStore.swift) only turns these calls into
// `SecItemCopyMatching`, `SecItemUpdate`, `SecItemAdd` and `SecItemDelete` and their statuses
// into `KeychainOutcome`s.

/// When a keychain item can be read: the two classes Latchkey offers, both this-device-only.
enum KeychainAccessibility: String, Sendable, Hashable {
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`.
    case whenUnlockedThisDeviceOnly
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`.
    case afterFirstUnlockThisDeviceOnly
}

/// How an item is protected. Latchkey's items never carry an access control (no biometry, no
/// user presence): a background refresh must be able to read and write them without a prompt.
/// Biometric protection of the app is the app lock's job.
struct KeychainProtection: Sendable, Hashable {
    var accessibility: KeychainAccessibility

    /// Written to the item's `kSecAttrGeneric`, so a later save can tell how the item is
    /// protected (an item's access control cannot be read back in a comparable form). An item
    /// without it predates this scheme and may carry a biometric access control.
    var tag: Data {
        Data("dev.latchkey.protection.v1;\(accessibility.rawValue);access-control=none".utf8)
    }
}

/// Which item: the generic-password item of `service` and `account` (the key), in `accessGroup`.
struct KeychainItem: Sendable, Hashable {
    var service: String
    var account: String
    var accessGroup: String?
    /// `kSecUseDataProtectionKeychain` (macOS): where the accessibility classes apply.
    var usesDataProtectionKeychain: Bool
}

/// What a save learns about an existing item (no data, no authentication).
struct KeychainItemAttributes: Sendable, Hashable {
    /// Its `kSecAttrAccessible`, when it is one of Latchkey's classes; `nil` for another class,
    /// or none reported.
    var accessibility: KeychainAccessibility?
    /// Its `kSecAttrGeneric`.
    var protectionTag: Data?
}

/// One keychain call. Reads never show authentication UI: an item that would need it answers
/// ``KeychainOutcome/interactionNotAllowed``.
enum KeychainCall: Sendable, Hashable {
    /// `SecItemCopyMatching` returning the item's attributes.
    case readAttributes(KeychainItem)
    /// `SecItemCopyMatching` returning the item's data.
    case readData(KeychainItem)
    /// `SecItemUpdate` with new data and, when given, a new protection (`kSecAttrAccessible`
    /// and the protection tag).
    case update(KeychainItem, data: Data, protection: KeychainProtection?)
    /// `SecItemAdd` with this data and protection.
    case add(KeychainItem, data: Data, protection: KeychainProtection)
    /// `SecItemDelete`.
    case delete(KeychainItem)
}

/// What a keychain call answered.
enum KeychainOutcome: Sendable, Hashable {
    case success
    /// `readAttributes` found the item.
    case attributes(KeychainItemAttributes)
    /// `readData` found the item.
    case data(Data)
    /// `errSecItemNotFound`.
    case itemNotFound
    /// `errSecDuplicateItem`.
    case duplicateItem
    /// `errSecInteractionNotAllowed`: the device is locked, or the item needs authentication
    /// and no UI may be shown.
    case interactionNotAllowed
    /// `errSecAuthFailed`, `errSecUserCanceled`.
    case authenticationFailed
    /// `errSecDecode`, or an item whose data is missing.
    case undecodable
    /// `errSecMissingEntitlement`, `errSecNotAvailable`, `errSecNoSuchKeychain`.
    case unavailable(status: Int32)
    /// Any other `OSStatus`.
    case failure(status: Int32)
}

/// Makes keychain calls. Each call blocks; ``KeychainEngine`` makes them on its own serial
/// queue, never on Swift's cooperative threads.
protocol KeychainDriver: Sendable {
    func perform(_ call: KeychainCall) -> KeychainOutcome
}

/// Loads, saves and deletes one store's items through a ``KeychainDriver``.
///
/// A save makes sure the item ends up with ``protection``:
/// - no item: add it; `errSecDuplicateItem` (an app and its extension adding at the same
///   moment) is retried as an update;
/// - an item with the same protection: update its data only;
/// - an item with another protection (the app changed its accessibility) or none recorded (an
///   item from an earlier version): update its data, `kSecAttrAccessible` and tag in place;
/// - such an update refused (an earlier version's biometry-bound item, which cannot be updated
///   without authentication): replace the item — but only after a pending copy with the new
///   data and protection was written, which proves the keychain takes writes now (a locked
///   device never loses the item it cannot rewrite) and keeps the data if the replacement
///   stops after its delete.
struct KeychainEngine: Sendable {
    let driver: any KeychainDriver
    let service: String
    let accessGroup: String?
    let usesDataProtectionKeychain: Bool
    let protection: KeychainProtection

    /// The queue every keychain call runs on (shared by every store: the keychain is one).
    static let queue = DispatchQueue(label: "dev.latchkey.keychain", qos: .userInitiated)
    /// How many times a save starts over after racing another writer.
    static let maximumAttempts = 3
    /// The account suffix of the pending copy a replacement writes first.
    static let pendingAccountSuffix = ".latchkey-pending"

    func item(_ key: String) -> KeychainItem {
        KeychainItem(
            service: service, account: key, accessGroup: accessGroup,
            usesDataProtectionKeychain: usesDataProtectionKeychain)
    }

    // MARK: - The store's operations, on the queue

    func load(key: String) async throws -> Data? {
        try await onQueue { () throws(StorageError) -> Data? in try self.loadNow(key: key) }
    }

    func save(_ data: Data, key: String) async throws {
        try await onQueue { () throws(StorageError) in try self.saveNow(data, key: key) }
    }

    func delete(key: String) async throws {
        try await onQueue { () throws(StorageError) in try self.deleteNow(key: key) }
    }

    private func onQueue<Value: Sendable>(_ body: @escaping @Sendable () throws(StorageError) -> Value) async throws -> Value {
        let result: Result<Value, StorageError> = await withCheckedContinuation { continuation in
            Self.queue.async {
                continuation.resume(returning: Result { () throws(StorageError) -> Value in try body() })
            }
        }
        return try result.get()
    }

    // MARK: - The decisions (synchronous; the caller chooses the thread)

    func loadNow(key: String) throws(StorageError) -> Data? {
        let item = item(key)
        switch driver.perform(.readData(item)) {
        case .data(let data): return data
        case .itemNotFound: return try recoverReplacement(of: item)
        case let outcome: throw Self.error(outcome, operation: "SecItemCopyMatching")
        }
    }

    func deleteNow(key: String) throws(StorageError) {
        let item = item(key)
        for target in [item, Self.pending(item)] {
            switch driver.perform(.delete(target)) {
            case .success, .itemNotFound: continue
            case let outcome: throw Self.error(outcome, operation: "SecItemDelete")
            }
        }
    }

    /// The item a replacement writes the new data to first (``replace(_:data:)``).
    static func pending(_ item: KeychainItem) -> KeychainItem {
        var pending = item
        pending.account += pendingAccountSuffix
        return pending
    }

    /// The data of a replacement interrupted after it deleted `item` (its pending copy), put
    /// back under `item`; `nil` when there is none.
    ///
    /// Only "no pending copy" means nothing is stored: a pending copy that cannot be read (a
    /// locked device: `errSecInteractionNotAllowed`) throws, so that the caller decides later
    /// rather than signing out a session that is only out of reach for now.
    private func recoverReplacement(of item: KeychainItem) throws(StorageError) -> Data? {
        let pending = Self.pending(item)
        let data: Data
        switch driver.perform(.readData(pending)) {
        case .data(let found) where !found.isEmpty: data = found
        case .itemNotFound, .data: return nil
        case let outcome: throw Self.error(outcome, operation: "SecItemCopyMatching")
        }
        // Finish the replacement; if the keychain refuses now, the pending copy still holds it.
        if driver.perform(.add(item, data: data, protection: protection)) == .success {
            _ = driver.perform(.delete(pending))
        }
        return data
    }

    func saveNow(_ data: Data, key: String) throws(StorageError) {
        let item = item(key)
        for _ in 0..<Self.maximumAttempts {
            switch driver.perform(.readAttributes(item)) {
            case .itemNotFound:
                switch driver.perform(.add(item, data: data, protection: protection)) {
                case .success: return
                case .duplicateItem: continue  // another process added it meanwhile: update it
                case let outcome: throw Self.error(outcome, operation: "SecItemAdd")
                }
            case .attributes(let existing):
                if matches(existing) {
                    switch driver.perform(.update(item, data: data, protection: nil)) {
                    case .success: return
                    case .itemNotFound: continue  // deleted meanwhile: add it
                    case let outcome: throw Self.error(outcome, operation: "SecItemUpdate")
                    }
                }
                switch driver.perform(.update(item, data: data, protection: protection)) {
                case .success: return
                case .itemNotFound: continue
                case .interactionNotAllowed, .authenticationFailed, .failure:
                    guard try replace(item, data: data) else { continue }
                    return
                case let outcome: throw Self.error(outcome, operation: "SecItemUpdate")
                }
            case let outcome:
                throw Self.error(outcome, operation: "SecItemCopyMatching")
            }
        }
        throw StorageError.unavailable(reason: "another process keeps writing the same keychain item")
    }

    /// Whether `existing` is already protected as configured.
    func matches(_ existing: KeychainItemAttributes) -> Bool {
        guard existing.protectionTag == protection.tag else { return false }
        // Outside the data-protection keychain (macOS file keychains) there is no class to compare.
        return !usesDataProtectionKeychain || existing.accessibility == protection.accessibility
    }

    /// Replaces `item` by one with the configured protection, never leaving the data nowhere:
    /// the new data is first written to a pending copy (which also proves the keychain takes
    /// writes now; if it does not, nothing is deleted), then `item` is deleted and added anew,
    /// then the copy is deleted. A failure or a crash after the delete leaves the new data in
    /// the pending copy, which the next load puts back (``loadNow(key:)``).
    /// - Returns: `false` when another writer added the item between the delete and the add
    ///   (start over: update it).
    private func replace(_ item: KeychainItem, data: Data) throws(StorageError) -> Bool {
        let pending = Self.pending(item)
        var added = driver.perform(.add(pending, data: data, protection: protection))
        if added == .duplicateItem {  // left over from an interrupted replacement
            _ = driver.perform(.delete(pending))
            added = driver.perform(.add(pending, data: data, protection: protection))
        }
        guard added == .success else { throw Self.error(added, operation: "SecItemAdd") }
        switch driver.perform(.delete(item)) {
        case .success, .itemNotFound: break
        case let outcome:
            _ = driver.perform(.delete(pending))  // the item is intact
            throw Self.error(outcome, operation: "SecItemDelete")
        }
        switch driver.perform(.add(item, data: data, protection: protection)) {
        case .success:
            _ = driver.perform(.delete(pending))
            return true
        case .duplicateItem:
            _ = driver.perform(.delete(pending))
            return false
        case let outcome: throw Self.error(outcome, operation: "SecItemAdd")
        }
    }

    /// The ``StorageError`` for an outcome that is not what the operation expected.
    static func error(_ outcome: KeychainOutcome, operation: String) -> StorageError {
        switch outcome {
        case .interactionNotAllowed: .locked
        case .authenticationFailed: .authenticationFailed
        case .undecodable: .corrupted(reason: "keychain item cannot be decoded")
        case .unavailable(let status): .unavailable(reason: "keychain unavailable (OSStatus \(status))")
        case .failure(let status): .status(status, operation: operation)
        case .duplicateItem: .unavailable(reason: "keychain item added by another process (\(operation))")
        case .itemNotFound: .unavailable(reason: "keychain item not found (\(operation))")
        case .success, .attributes, .data: .unavailable(reason: "unexpected keychain answer (\(operation))")
        }
    }
}
