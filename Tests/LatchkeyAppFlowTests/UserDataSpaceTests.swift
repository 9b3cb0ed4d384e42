import Foundation
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import LatchkeyAppFlow

/// The per-user data space on its own: isolation by construction, close handlers, wipe,
/// claiming legacy data, and the sign-out cleanup step.
@Suite("App flow: user data space", .timeLimit(.minutes(5)))
@MainActor
struct UserDataSpaceTests {
    let root = temporaryDirectory("latchkey-space")

    func makeSpace(policy: UserDataSpace.SignOutPolicy = .keep) -> UserDataSpace {
        UserDataSpace(configuration: .init(root: root, signOutPolicy: policy), logger: .quiet)
    }

    @Test("Each user gets their own owner-only directory under the root, whatever the ID")
    func isolation() async throws {
        defer { removeDirectory(root) }
        let space = makeSpace()
        #expect(space.area == .none)
        let first = try await space.open(userID: "user-1")
        let second = space.directory(for: "user-2")
        #expect(first != second)
        #expect(first.deletingLastPathComponent().path == root.appendingPathComponent("Users").path)
        let attributes = try FileManager.default.attributesOfItem(atPath: first.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(space.area == .user(id: "user-1", directory: first))

        let hostile = try await space.open(userID: "../../../etc/passwd")
        #expect(hostile.path.hasPrefix(root.appendingPathComponent("Users").path), "no ID names a path outside the root")
        #expect(space.currentUserID == "../../../etc/passwd")
    }

    @Test("Opening another user closes the first; close handlers run in order, each even after a failure")
    func closeHandlers() async throws {
        defer { removeDirectory(root) }
        let space = makeSpace()
        var calls: [String] = []
        space.addCloseHandler("database") {
            calls.append("database")
            throw StorageError.unavailable(reason: "busy")
        }
        space.addCloseHandler("cache") { calls.append("cache") }
        try await space.open(userID: "a")
        try await space.open(userID: "a")
        #expect(calls.isEmpty, "reopening the same user closes nothing")
        try await space.open(userID: "b")
        #expect(calls == ["database", "cache"])
        #expect(space.currentUserID == "b")
        await space.close()
        #expect(calls.count == 4)
        #expect(space.area == .none)
    }

    @Test("Wiping removes every user's directory and keeps the legacy data")
    func wipe() async throws {
        defer { removeDirectory(root) }
        let space = makeSpace()
        try writeFile("old.sqlite", in: space.configuration.resolvedLegacyDirectory)
        let a = try await space.open(userID: "a")
        try writeFile("a.sqlite", in: a)
        let b = try await space.open(userID: "b")
        try writeFile("b.sqlite", in: b)
        try await space.wipeAllUsers()
        #expect(space.currentUserID == nil)
        #expect(!FileManager.default.fileExists(atPath: a.path))
        #expect(!FileManager.default.fileExists(atPath: b.path))
        #expect(space.area == .legacy(space.configuration.resolvedLegacyDirectory))
        #expect(fileNames(in: root).filter { $0.hasPrefix(".wiped") }.isEmpty, "nothing left behind")
    }

    @Test("Claiming is all or nothing; nobody signed in cannot claim")
    func claimConflict() async throws {
        defer { removeDirectory(root) }
        let space = makeSpace()
        #expect(throws: UserDataSpaceError.notOpen) { try space.claimLegacyData() }
        let legacy = space.configuration.resolvedLegacyDirectory
        try writeFile("challenges.sqlite", in: legacy)
        try writeFile("settings.json", in: legacy)
        let directory = try await space.open(userID: "a")
        try writeFile("challenges.sqlite", in: directory, contents: "mine")
        #expect(throws: UserDataSpaceError.claimConflict(["challenges.sqlite"])) { try space.claimLegacyData() }
        #expect(fileNames(in: legacy) == ["challenges.sqlite", "settings.json"], "nothing moved")
        try FileManager.default.removeItem(at: directory.appendingPathComponent("challenges.sqlite"))
        #expect(try space.claimLegacyData() == ["challenges.sqlite", "settings.json"])
        #expect(fileNames(in: directory) == ["challenges.sqlite", "settings.json"])
        #expect(!space.hasLegacyData)
    }

    @Test("Registered as a cleanup step: sign-out closes (keep) or wipes (wipe)", arguments: [UserDataSpace.SignOutPolicy.keep, .wipe])
    func cleanupStep(policy: UserDataSpace.SignOutPolicy) async throws {
        defer { removeDirectory(root) }
        let backend = TestBackend()
        let manager = SessionManager(backend: backend, store: MemoryCredentialStore(), logger: .quiet)
        let space = makeSpace(policy: policy)
        await space.attach(to: manager)
        let session = try await manager.account.signIn(email: "ada@example.com", password: "correct horse")
        #expect(await eventually { space.currentUserID == session.user.id })
        let directory = try #require(space.area.directory)
        try writeFile("data.sqlite", in: directory)

        let report = await manager.signOut()
        #expect(report.completedSteps == [UserDataSpace.cleanupStepName])
        #expect(space.currentUserID == nil, "closed before signOut returns")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("data.sqlite").path) == (policy == .keep))
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(space.currentUserID == nil, "a late event does not reopen the signed-out user's data")
    }

    @Test("Signing in as another account without signing out closes the first account's space first")
    func accountSwitch() async throws {
        removeDirectory(root)  // this test's data lives in the app's container
        try await withFlowServer { server in
            let first = uniqueEmail("first")
            let second = uniqueEmail("second")
            let firstID = try await server.createAccount(email: first)
            let secondID = try await server.createAccount(email: second)
            let app = FlowApp(server: server)
            app.signOutPolicy = .keep
            let launch = await app.launch(onboarding: false)
            var closed: [String?] = []
            launch.dataSpace.addCloseHandler("database") { closed.append(launch.dataSpace.currentUserID) }
            await launch.router.start()
            try await launch.manager.account.signIn(email: first, password: "correct horse battery")
            #expect(await launch.waitForDataSpace(user: firstID))
            try writeFile("first.sqlite", in: try #require(launch.dataSpace.area.directory))

            try await launch.manager.account.signIn(email: second, password: "correct horse battery")
            #expect(await launch.waitForDataSpace(user: secondID))
            #expect(closed == [firstID], "the first account's files were closed before the second opened")
            #expect(fileNames(in: launch.dataSpace.area.directory).isEmpty)
            try await Task.sleep(nanoseconds: 50_000_000)
            #expect(launch.dataSpace.currentUserID == secondID, "no late reopening of the first account")
            #expect(launch.router.route == .main)
        }
    }
}
