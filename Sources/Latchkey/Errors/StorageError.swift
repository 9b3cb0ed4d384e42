/// Why a ``CredentialStore`` could not read or write.
///
/// "Nothing stored" is never an error: ``CredentialStore/load(key:)`` returns `nil` for it.
/// Every case here means the credentials may still exist, so Latchkey reports them and never
/// treats them as "signed out" by wiping anything.
public enum StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store is locked: the device is locked, or user interaction is not allowed right now
    /// (`errSecInteractionNotAllowed`, a locked Secret Service collection). Retry once unlocked.
    case locked
    /// The user cancelled, or failed, the biometric or passcode prompt that guards the item.
    case authenticationFailed
    /// What is stored cannot be read back: truncated, tampered with, wrong key, not a session.
    case corrupted(reason: String)
    /// The store cannot be reached at all: no keyring answering, missing entitlement,
    /// unreadable directory.
    case unavailable(reason: String)
    /// An operating-system status the store does not map: an `OSStatus` from the keychain, an
    /// `errno` from the file system, a `GError` code from libsecret.
    case status(Int32, operation: String)

    public var description: String {
        switch self {
        case .locked: "StorageError.locked"
        case .authenticationFailed: "StorageError.authenticationFailed"
        case .corrupted(let reason): "StorageError.corrupted(\(reason))"
        case .unavailable(let reason): "StorageError.unavailable(\(reason))"
        case .status(let code, let operation): "StorageError.status(\(code), operation: \(operation))"
        }
    }
}
