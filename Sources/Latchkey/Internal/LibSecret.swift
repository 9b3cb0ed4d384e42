import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// libsecret and the bits of GLib it needs, loaded with `dlopen` at run time so that Latchkey has
/// no build or link dependency on them. Only the non-variadic `…v_sync` entry points are used
/// (Swift cannot call C variadic functions through a pointer).
final class LibSecret: @unchecked Sendable {
    typealias LookupFunction =
        @convention(c) (
            UnsafeRawPointer?, OpaquePointer?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> UnsafeMutablePointer<CChar>?
    typealias StoreFunction =
        @convention(c) (
            UnsafeRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
            UnsafePointer<CChar>?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> Int32
    typealias ClearFunction =
        @convention(c) (
            UnsafeRawPointer?, OpaquePointer?, OpaquePointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> Int32
    typealias SearchFunction =
        @convention(c) (
            OpaquePointer?, UnsafeRawPointer?, OpaquePointer?, Int32, OpaquePointer?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> UnsafeMutableRawPointer?
    typealias ListFreeFull = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
    typealias FreeFunction = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias QuarkFunction = @convention(c) () -> UInt32
    typealias HashTableNew = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> OpaquePointer?
    typealias HashTableInsert = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32
    typealias HashTableUnref = @convention(c) (OpaquePointer?) -> Void

    /// A libsecret/GLib error, copied out of its `GError`, or a failure libsecret did not explain.
    struct Failure: Error {
        let isSecretDomain: Bool
        /// The `GError` code; `nil` when libsecret failed without a `GError`.
        let code: Int32?
        let message: String

        /// `SECRET_ERROR_IS_LOCKED`: the item or its collection is locked.
        static let isLockedCode: Int32 = 2
        /// A lookup found nothing although the item exists: it is locked.
        static let itemLocked = Failure(isSecretDomain: true, code: isLockedCode, message: "item is locked")
        /// `secret_password_store_sync` returned `FALSE` without a `GError`.
        static let storeRefused = Failure(isSecretDomain: false, code: nil, message: "store failed")

        /// Whether the keyring said the item or collection is locked.
        var isLocked: Bool {
            isSecretDomain && code == Self.isLockedCode || message.localizedCaseInsensitiveContains("locked")
        }
    }

    let lookup: LookupFunction
    let store: StoreFunction
    let clear: ClearFunction
    let search: SearchFunction
    let listFreeFull: ListFreeFull
    let objectUnref: UnsafeMutableRawPointer
    let passwordFree: FreeFunction
    let errorFree: FreeFunction
    let secretErrorQuark: QuarkFunction
    let hashTableNew: HashTableNew
    let hashTableInsert: HashTableInsert
    let hashTableUnref: HashTableUnref
    let stringHash: UnsafeMutableRawPointer
    let stringEqual: UnsafeMutableRawPointer

    /// Loads libsecret, or returns `nil` when it is not installed. The Secret Service is a
    /// freedesktop.org API (Linux and BSD desktops): on Apple platforms this is always `nil`,
    /// and apps use the Keychain.
    init?() {
        #if os(Linux) || os(FreeBSD) || os(OpenBSD)
        guard let secret = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL),
            let glib = dlopen("libglib-2.0.so.0", RTLD_NOW | RTLD_LOCAL),
            let gobject = dlopen("libgobject-2.0.so.0", RTLD_NOW | RTLD_LOCAL)
        else { return nil }
        func symbol<T>(_ handle: UnsafeMutableRawPointer, _ name: String, as type: T.Type) -> T? {
            guard let pointer = dlsym(handle, name) else { return nil }
            return unsafeBitCast(pointer, to: type)
        }
        guard let lookup = symbol(secret, "secret_password_lookupv_sync", as: LookupFunction.self),
            let store = symbol(secret, "secret_password_storev_sync", as: StoreFunction.self),
            let clear = symbol(secret, "secret_password_clearv_sync", as: ClearFunction.self),
            let search = symbol(secret, "secret_service_search_sync", as: SearchFunction.self),
            let listFreeFull = symbol(glib, "g_list_free_full", as: ListFreeFull.self),
            let objectUnref = dlsym(gobject, "g_object_unref"),
            let passwordFree = symbol(secret, "secret_password_free", as: FreeFunction.self),
            let quark = symbol(secret, "secret_error_get_quark", as: QuarkFunction.self),
            let errorFree = symbol(glib, "g_error_free", as: FreeFunction.self),
            let hashTableNew = symbol(glib, "g_hash_table_new", as: HashTableNew.self),
            let hashTableInsert = symbol(glib, "g_hash_table_insert", as: HashTableInsert.self),
            let hashTableUnref = symbol(glib, "g_hash_table_unref", as: HashTableUnref.self),
            let stringHash = dlsym(glib, "g_str_hash"),
            let stringEqual = dlsym(glib, "g_str_equal")
        else { return nil }
        self.lookup = lookup
        self.store = store
        self.clear = clear
        self.search = search
        self.listFreeFull = listFreeFull
        self.objectUnref = objectUnref
        self.passwordFree = passwordFree
        self.errorFree = errorFree
        self.secretErrorQuark = quark
        self.hashTableNew = hashTableNew
        self.hashTableInsert = hashTableInsert
        self.hashTableUnref = hashTableUnref
        self.stringHash = stringHash
        self.stringEqual = stringEqual
        #else
        return nil
        #endif
    }

    /// Whether an item matching `attributes` exists, locked ones included, without unlocking
    /// anything. `secret_password_lookupv_sync` returns `NULL` *without an error* for an item in a
    /// locked collection; this tells that apart from "not found".
    func itemExists(_ schema: UnsafeRawPointer, _ attributes: OpaquePointer?) -> Result<Bool, Failure> {
        var error: UnsafeMutableRawPointer?
        let searchAll: Int32 = 1 << 1  // SECRET_SEARCH_ALL, without SECRET_SEARCH_UNLOCK
        let list = search(nil, schema, attributes, searchAll, nil, &error)
        if let error { return .failure(takeError(error)) }
        guard let list else { return .success(false) }
        listFreeFull(list, objectUnref)
        return .success(true)
    }

    /// Copies a `GError` into a ``Failure`` and frees it.
    func takeError(_ error: UnsafeMutableRawPointer) -> Failure {
        // struct GError { GQuark domain; gint code; gchar *message; }
        let domain = error.load(as: UInt32.self)
        let code = error.load(fromByteOffset: 4, as: Int32.self)
        let messagePointer = error.load(
            fromByteOffset: MemoryLayout<UnsafeRawPointer>.stride, as: UnsafePointer<CChar>?.self)
        let message = messagePointer.map { String(cString: $0) } ?? ""
        let failure = Failure(isSecretDomain: domain == secretErrorQuark(), code: code, message: message)
        errorFree(error)
        return failure
    }

    /// Runs `body` with a `GHashTable` of string attributes that lives for the call.
    func withAttributes<Result>(
        _ attributes: [(UnsafeMutablePointer<CChar>, UnsafeMutablePointer<CChar>)],
        _ body: (OpaquePointer?) -> Result
    ) -> Result {
        let table = hashTableNew(stringHash, stringEqual)
        defer { hashTableUnref(table) }
        for (name, value) in attributes {
            _ = hashTableInsert(table, UnsafeMutableRawPointer(name), UnsafeMutableRawPointer(value))
        }
        return body(table)
    }
}

/// A `SecretSchema` laid out in memory for the C library; freed with its owner.
final class SecretSchemaBuffer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    private var strings: [UnsafeMutablePointer<CChar>] = []

    /// Builds a schema named `name` with string attributes `attributes`.
    init(name: String, attributes: [String]) {
        // struct SecretSchema { const gchar *name; SecretSchemaFlags flags;
        //   SecretSchemaAttribute attributes[32]; gint reserved; gpointer reserved1..7; }
        // SecretSchemaAttribute { const gchar *name; SecretSchemaAttributeType type; }
        let pointerSize = MemoryLayout<UnsafeRawPointer>.stride
        let attributeSize = pointerSize * 2
        let size = pointerSize * 2 + attributeSize * 32 + pointerSize * 8
        pointer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: pointerSize)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let schemaName = strdup(name)!
        strings.append(schemaName)
        pointer.storeBytes(of: UnsafePointer(schemaName), as: UnsafePointer<CChar>.self)
        pointer.storeBytes(of: Int32(0), toByteOffset: pointerSize, as: Int32.self)  // SECRET_SCHEMA_NONE
        for (index, attribute) in attributes.prefix(31).enumerated() {
            let attributeName = strdup(attribute)!
            strings.append(attributeName)
            let offset = pointerSize * 2 + index * attributeSize
            pointer.storeBytes(of: UnsafePointer(attributeName), toByteOffset: offset, as: UnsafePointer<CChar>.self)
            // SECRET_SCHEMA_ATTRIBUTE_STRING == 0, already zeroed.
        }
    }

    deinit {
        for element in strings { free(element) }
        pointer.deallocate()
    }
}
