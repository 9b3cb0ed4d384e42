import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Credentials in the Linux desktop keyring (GNOME Keyring, KWallet, KeePassXC…) through the
/// Secret Service API.
///
/// libsecret is loaded at run time with `dlopen`, so Latchkey has no build dependency on it and
/// a program still runs where it is missing; ``isAvailable()`` says whether a keyring answered.
/// Items use the schema `dev.latchkey.Credential` with attributes `service` and `account`
/// (the key), and hold the data Base64-encoded. The keyring's blocking D-Bus calls run on the
/// store's own queue, never on Swift's cooperative threads.
///
/// A locked collection loads as ``StorageError/locked``; no keyring as
/// ``StorageError/unavailable(reason:)``.
public final class SecretServiceCredentialStore: CredentialStore, @unchecked Sendable {
    /// The `service` attribute: one per app.
    public let service: String
    private let library: LibSecret?
    private let schema = SecretSchemaBuffer(name: "dev.latchkey.Credential", attributes: ["service", "account"])
    private let queue = DispatchQueue(label: "dev.latchkey.secret-service")

    /// Creates a store for `service` (e.g. your app's bundle identifier).
    public init(service: String) {
        self.service = service
        self.library = LibSecret()
    }

    /// Whether libsecret is installed and a keyring answered a lookup.
    public func isAvailable() async -> Bool {
        do {
            _ = try await load(key: "dev.latchkey.probe")
            return true
        } catch {
            return false
        }
    }

    /// ``isAvailable()`` for synchronous callers (test conditions): blocks on the store's queue.
    func probeSynchronously() -> Bool {
        guard let library else { return false }
        let result = queue.sync {
            Self.call(library, schema, service: service, key: "dev.latchkey.probe") { library, schema, attributes in
                var error: UnsafeMutableRawPointer?
                let result = library.lookup(schema, attributes, nil, &error)
                if let result { library.passwordFree(result) }
                if let error { return .failure(library.takeError(error)) }
                return .success(nil)
            }
        }
        if case .success = result { return true }
        return false
    }

    public func load(key: String) async throws -> Data? {
        let text = try await run(key: key) { library, schema, attributes in
            var error: UnsafeMutableRawPointer?
            let result = library.lookup(schema, attributes, nil, &error)
            if let error { return .failure(library.takeError(error)) }
            guard let result else {
                // NULL without an error is also what a locked item looks like.
                switch library.itemExists(schema, attributes) {
                case .success(false): return .success(nil)
                case .success(true): return .failure(.itemLocked)
                case .failure(let failure): return .failure(failure)
                }
            }
            defer { library.passwordFree(result) }
            return .success(String(cString: result))
        }
        guard let text else { return nil }
        guard let data = Data(base64Encoded: text) else {
            throw StorageError.corrupted(reason: "keyring item is not Base64")
        }
        return data
    }

    public func save(_ data: Data, key: String) async throws {
        let label = "\(service) credentials (\(key))"
        let secret = data.base64EncodedString()
        _ = try await run(key: key) { library, schema, attributes in
            var error: UnsafeMutableRawPointer?
            let stored = library.store(schema, attributes, nil, label, secret, nil, &error)
            if let error { return .failure(library.takeError(error)) }
            return stored != 0 ? .success(nil) : .failure(.storeRefused)
        }
    }

    public func delete(key: String) async throws {
        _ = try await run(key: key) { library, schema, attributes in
            var error: UnsafeMutableRawPointer?
            _ = library.clear(schema, attributes, nil, &error)  // FALSE when nothing matched: fine
            if let error { return .failure(library.takeError(error)) }
            return .success(nil)
        }
    }

    /// Runs a blocking libsecret call on the store's queue with the attributes for `key`.
    private func run(
        key: String,
        _ body: @escaping @Sendable (LibSecret, UnsafeRawPointer, OpaquePointer?) -> Result<String?, LibSecret.Failure>
    ) async throws -> String? {
        guard let library else {
            throw StorageError.unavailable(reason: "libsecret is not installed")
        }
        let schema = self.schema
        let service = self.service
        let result: Result<String?, LibSecret.Failure> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Self.call(library, schema, service: service, key: key, body))
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let failure): throw Self.storageError(failure)
        }
    }

    /// Calls `body` with the schema and a `GHashTable` of the item's attributes (on the queue).
    private static func call(
        _ library: LibSecret, _ schema: SecretSchemaBuffer, service: String, key: String,
        _ body: (LibSecret, UnsafeRawPointer, OpaquePointer?) -> Result<String?, LibSecret.Failure>
    ) -> Result<String?, LibSecret.Failure> {
        let serviceName = strdup("service")!
        let serviceValue = strdup(service)!
        let accountName = strdup("account")!
        let accountValue = strdup(key)!
        defer {
            for pointer in [serviceName, serviceValue, accountName, accountValue] { free(pointer) }
        }
        return library.withAttributes([(serviceName, serviceValue), (accountName, accountValue)]) {
            body(library, UnsafeRawPointer(schema.pointer), $0)
        }
    }

    private static func storageError(_ failure: LibSecret.Failure) -> StorageError {
        if failure.isLocked {
            return .locked
        }
        if failure.message.localizedCaseInsensitiveContains("dismissed") {
            return .authenticationFailed
        }
        if failure.isSecretDomain, let code = failure.code {
            return .status(code, operation: "secret service")
        }
        return .unavailable(reason: "no Secret Service keyring answered")
    }
}
