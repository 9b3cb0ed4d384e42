import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// A keychain in memory that answers like the real one: items keyed by account, with their
/// accessibility, protection tag and whether an access control (biometry) guards them. Items
/// guarded by an access control cannot be read or updated without authentication (no UI is
/// ever allowed); while the device is locked, `whenUnlocked` items cannot be read, updated or
/// added. A test can make another writer act just before a call.
final class FakeKeychain: KeychainDriver, Sendable {
    struct Item: Equatable {
        var data: Data
        var accessibility: KeychainAccessibility
        var tag: Data?
        var biometryBound = false
    }

    struct State {
        var items: [String: Item] = [:]
        var calls: [KeychainCall] = []
        var queues: [String?] = []
        var locked = false
        /// Runs before the next call of this kind ("add", "update"…), once.
        var before: [String: @Sendable (inout [String: Item]) -> Void] = [:]
        /// Answers for the next calls of a kind, in order, instead of performing them (`nil`:
        /// perform that one): a keychain failing in the middle of a sequence.
        var outcomes: [String: [KeychainOutcome?]] = [:]
    }

    static let queueKey = DispatchSpecificKey<String>()
    let state = Locked(State())

    init() {
        KeychainEngine.queue.setSpecific(key: Self.queueKey, value: "keychain")
    }

    var items: [String: Item] { state.withLock { $0.items } }
    var calls: [KeychainCall] { state.withLock { $0.calls } }

    func perform(_ call: KeychainCall) -> KeychainOutcome {
        state.withLock { state in
            state.calls.append(call)
            state.queues.append(DispatchQueue.getSpecific(key: Self.queueKey))
            if let hook = state.before.removeValue(forKey: call.kind) { hook(&state.items) }
            if var queued = state.outcomes[call.kind], !queued.isEmpty {
                let outcome = queued.removeFirst()
                state.outcomes[call.kind] = queued
                if let outcome { return outcome }
            }
            return answer(call, &state)
        }
    }

    private func answer(_ call: KeychainCall, _ state: inout State) -> KeychainOutcome {
        func unreadable(_ item: Item) -> Bool {
            item.biometryBound || (state.locked && item.accessibility == .whenUnlockedThisDeviceOnly)
        }
        switch call {
        case .readAttributes(let key):
            guard let item = state.items[key.account] else { return .itemNotFound }
            // Attributes need no authentication; a locked device hides whenUnlocked items.
            if state.locked, item.accessibility == .whenUnlockedThisDeviceOnly { return .interactionNotAllowed }
            return .attributes(KeychainItemAttributes(accessibility: item.accessibility, protectionTag: item.tag))
        case .readData(let key):
            guard let item = state.items[key.account] else { return .itemNotFound }
            return unreadable(item) ? .interactionNotAllowed : .data(item.data)
        case .update(let key, let data, let protection):
            guard var item = state.items[key.account] else { return .itemNotFound }
            if unreadable(item) { return .interactionNotAllowed }
            item.data = data
            if let protection {
                item.accessibility = protection.accessibility
                item.tag = protection.tag
            }
            state.items[key.account] = item
            return .success
        case .add(let key, let data, let protection):
            guard state.items[key.account] == nil else { return .duplicateItem }
            if state.locked, protection.accessibility == .whenUnlockedThisDeviceOnly { return .interactionNotAllowed }
            state.items[key.account] = Item(data: data, accessibility: protection.accessibility, tag: protection.tag)
            return .success
        case .delete(let key):
            return state.items.removeValue(forKey: key.account) == nil ? .itemNotFound : .success
        }
    }
}

extension KeychainCall {
    var kind: String {
        switch self {
        case .readAttributes: "readAttributes"
        case .readData: "readData"
        case .update: "update"
        case .add: "add"
        case .delete: "delete"
        }
    }
}

@Suite("Keychain store decisions (the model behind KeychainCredentialStore)")
struct KeychainEngineTests {
    let keychain = FakeKeychain()

    func engine(_ accessibility: KeychainAccessibility, dataProtection: Bool = true) -> KeychainEngine {
        KeychainEngine(
            driver: keychain, service: "com.example.app", accessGroup: "TEAMID.com.example.shared",
            usesDataProtectionKeychain: dataProtection, protection: KeychainProtection(accessibility: accessibility))
    }

    @Test("A new item is added with the configured protection")
    func add() async throws {
        try await engine(.afterFirstUnlockThisDeviceOnly).save(Data("one".utf8), key: "session")
        let item = try #require(keychain.items["session"])
        #expect(item.data == Data("one".utf8))
        #expect(item.accessibility == .afterFirstUnlockThisDeviceOnly)
        #expect(item.tag == KeychainProtection(accessibility: .afterFirstUnlockThisDeviceOnly).tag)
    }

    @Test("Saving over an item protected as configured sends only the data")
    func sameProtection() async throws {
        let store = engine(.whenUnlockedThisDeviceOnly)
        try await store.save(Data("one".utf8), key: "session")
        try await store.save(Data("two".utf8), key: "session")
        #expect(keychain.items["session"]?.data == Data("two".utf8))
        #expect(keychain.calls.last == .update(store.item("session"), data: Data("two".utf8), protection: nil))
    }

    @Test("The app changed its accessibility: the next save rewrites the item's protection")
    func protectionChange() async throws {
        try await engine(.whenUnlockedThisDeviceOnly).save(Data("one".utf8), key: "session")
        let store = engine(.afterFirstUnlockThisDeviceOnly)
        try await store.save(Data("two".utf8), key: "session")
        let item = try #require(keychain.items["session"])
        #expect(item.accessibility == .afterFirstUnlockThisDeviceOnly, "a save that sent only the data kept the old class")
        #expect(item.tag == KeychainProtection(accessibility: .afterFirstUnlockThisDeviceOnly).tag)
        #expect(item.data == Data("two".utf8))
        #expect(!keychain.calls.contains { $0.kind == "delete" }, "changed in place, never deleted")
        #expect(try await store.load(key: "session") == Data("two".utf8))
    }

    @Test("An item from an earlier version (no protection tag) is tagged in place")
    func untaggedItem() async throws {
        keychain.state.withLock {
            $0.items["session"] = .init(data: Data("old".utf8), accessibility: .whenUnlockedThisDeviceOnly, tag: nil)
        }
        try await engine(.whenUnlockedThisDeviceOnly).save(Data("new".utf8), key: "session")
        #expect(keychain.items["session"]?.tag == KeychainProtection(accessibility: .whenUnlockedThisDeviceOnly).tag)
        #expect(!keychain.calls.contains { $0.kind == "delete" })
    }

    @Test("An earlier version's biometry-bound item is replaced by an ordinary one, after a pending copy is written")
    func biometryBoundItemReplaced() async throws {
        keychain.state.withLock {
            $0.items["session"] = .init(
                data: Data("old".utf8), accessibility: .whenUnlockedThisDeviceOnly, tag: nil, biometryBound: true)
        }
        let store = engine(.afterFirstUnlockThisDeviceOnly)
        #expect(
            await throwsStorageError(.locked) { _ = try await store.load(key: "session") },
            "reading it never prompts: it reads as locked, and nothing is wiped")
        #expect(keychain.items["session"] != nil)

        try await store.save(Data("new".utf8), key: "session")
        let item = try #require(keychain.items["session"])
        #expect(!item.biometryBound)
        #expect(item.accessibility == .afterFirstUnlockThisDeviceOnly)
        #expect(item.data == Data("new".utf8))
        #expect(keychain.items.count == 1, "the pending copy is gone")
        let kinds = keychain.calls.map(\.kind)
        #expect(kinds == ["readData", "readAttributes", "update", "add", "delete", "add", "delete"])
        #expect(try await store.load(key: "session") == Data("new".utf8))
    }

    @Test("A replacement that fails after deleting the old item loses nothing: the next load puts the new data back")
    func replacementInterruptedAfterDelete() async throws {
        keychain.state.withLock {
            $0.items["session"] = .init(
                data: Data("old".utf8), accessibility: .whenUnlockedThisDeviceOnly, tag: nil, biometryBound: true)
            // The pending copy is written; the item's own add, after its delete, fails.
            $0.outcomes["add"] = [nil, .failure(status: -34018)]
        }
        let store = engine(.afterFirstUnlockThisDeviceOnly)
        await #expect(throws: StorageError.self) { try await store.save(Data("new".utf8), key: "session") }
        #expect(keychain.items["session"] == nil, "the old item was deleted")

        #expect(try await store.load(key: "session") == Data("new".utf8), "the newest session is not lost")
        let item = try #require(keychain.items["session"], "the load finished the replacement")
        #expect(item.data == Data("new".utf8) && !item.biometryBound)
        #expect(keychain.items.count == 1, "and removed the pending copy")

        try await store.delete(key: "session")
        #expect(keychain.items.isEmpty)
    }

    @Test("Deleting also removes a pending copy left by an interrupted replacement")
    func deleteRemovesPendingCopy() async throws {
        keychain.state.withLock {
            $0.items["session.latchkey-pending"] = .init(data: Data("new".utf8), accessibility: .afterFirstUnlockThisDeviceOnly, tag: nil)
        }
        let store = engine(.afterFirstUnlockThisDeviceOnly)
        try await store.delete(key: "session")
        #expect(keychain.items.isEmpty)
        #expect(try await store.load(key: "session") == nil, "a signed-out user is not signed back in")
    }

    @Test("While the device is locked, an item that cannot be rewritten is kept, and the save reports locked")
    func lockedDeviceDeletesNothing() async throws {
        keychain.state.withLock {
            $0.items["session"] = .init(
                data: Data("old".utf8), accessibility: .afterFirstUnlockThisDeviceOnly, tag: nil, biometryBound: true)
            $0.locked = true
        }
        let store = engine(.whenUnlockedThisDeviceOnly)
        #expect(await throwsStorageError(.locked) { try await store.save(Data("new".utf8), key: "session") })
        #expect(keychain.items["session"]?.data == Data("old".utf8), "nothing deleted without a proven write")
        #expect(!keychain.calls.contains { if case .delete(let item) = $0 { item.account == "session" } else { false } })
    }

    @Test("A locked device: reads report locked, never 'nothing stored'")
    func lockedRead() async throws {
        keychain.state.withLock {
            $0.items["session"] = .init(data: Data("s".utf8), accessibility: .whenUnlockedThisDeviceOnly, tag: nil)
            $0.locked = true
        }
        #expect(await throwsStorageError(.locked) { _ = try await engine(.whenUnlockedThisDeviceOnly).load(key: "session") })
        #expect(try await engine(.whenUnlockedThisDeviceOnly).load(key: "other") == nil)
    }

    @Test("A pending copy that cannot be read while locked reads as locked, not as 'nothing stored'")
    func lockedPendingCopy() async throws {
        keychain.state.withLock {
            // An interrupted replacement left the session in the pending copy only.
            $0.items["session.latchkey-pending"] = .init(
                data: Data("new".utf8), accessibility: .whenUnlockedThisDeviceOnly, tag: nil)
            $0.locked = true
        }
        let store = engine(.whenUnlockedThisDeviceOnly)
        #expect(await throwsStorageError(.locked) { _ = try await store.load(key: "session") })
        #expect(keychain.items["session.latchkey-pending"] != nil, "nothing wiped")

        keychain.state.withLock { $0.locked = false }
        #expect(try await store.load(key: "session") == Data("new".utf8), "read once the device is unlocked")
    }

    @Test("errSecDuplicateItem from an extension adding at the same moment is retried as an update: saved once")
    func duplicateRace() async throws {
        let store = engine(.afterFirstUnlockThisDeviceOnly)
        let protection = KeychainProtection(accessibility: .afterFirstUnlockThisDeviceOnly)
        keychain.state.withLock {
            // The extension's add lands between this save's look-up and its add.
            $0.before["add"] = { items in
                items["session"] = .init(data: Data("extension".utf8), accessibility: .afterFirstUnlockThisDeviceOnly, tag: protection.tag)
            }
        }
        try await store.save(Data("app".utf8), key: "session")
        #expect(keychain.items.count == 1)
        #expect(keychain.items["session"]?.data == Data("app".utf8))
        let writes = keychain.calls.filter { ["add", "update"].contains($0.kind) }
        #expect(
            writes == [
                .add(store.item("session"), data: Data("app".utf8), protection: protection),
                .update(store.item("session"), data: Data("app".utf8), protection: nil),
            ], "one refused add, then exactly one update")
    }

    @Test("A writer that keeps racing makes the save fail after a few attempts, deleting nothing")
    func endlessRace() async throws {
        final class Racer: KeychainDriver, Sendable {
            let calls = Locked(0)
            func perform(_ call: KeychainCall) -> KeychainOutcome {
                calls.withLock { $0 += 1 }
                switch call {
                case .readAttributes: return .itemNotFound
                case .add: return .duplicateItem
                default: return .failure(status: -1)
                }
            }
        }
        let racer = Racer()
        let store = KeychainEngine(
            driver: racer, service: "s", accessGroup: nil, usesDataProtectionKeychain: true,
            protection: KeychainProtection(accessibility: .whenUnlockedThisDeviceOnly))
        await #expect(throws: StorageError.self) { try await store.save(Data(), key: "k") }
        #expect(racer.calls.withLock { $0 } == 2 * KeychainEngine.maximumAttempts)
    }

    @Test("Every keychain call runs on the keychain's own queue, never on Swift's cooperative threads")
    func callsRunOnTheQueue() async throws {
        let store = engine(.whenUnlockedThisDeviceOnly)
        try await store.save(Data("one".utf8), key: "session")
        _ = try await store.load(key: "session")
        try await store.delete(key: "session")
        let queues = keychain.state.withLock { $0.queues }
        #expect(!queues.isEmpty)
        #expect(queues.allSatisfy { $0 == "keychain" })
    }

    @Test("Outside the data-protection keychain (macOS file keychains) there is no class to compare")
    func fileKeychain() async throws {
        let store = engine(.whenUnlockedThisDeviceOnly, dataProtection: false)
        #expect(store.matches(KeychainItemAttributes(accessibility: nil, protectionTag: store.protection.tag)))
        #expect(!store.matches(KeychainItemAttributes(accessibility: nil, protectionTag: nil)))
        #expect(
            !engine(.whenUnlockedThisDeviceOnly).matches(
                KeychainItemAttributes(accessibility: .afterFirstUnlockThisDeviceOnly, protectionTag: store.protection.tag)))
    }

    @Test("Delete removes the item; deleting nothing succeeds")
    func delete() async throws {
        let store = engine(.whenUnlockedThisDeviceOnly)
        try await store.save(Data("one".utf8), key: "session")
        try await store.delete(key: "session")
        try await store.delete(key: "session")
        #expect(keychain.items.isEmpty)
    }
}

/// Whether `body` throws exactly `expected`.
func throwsStorageError(_ expected: StorageError, _ body: () async throws -> Void) async -> Bool {
    do {
        try await body()
        return false
    } catch let error as StorageError {
        return error == expected
    } catch {
        return false
    }
}
