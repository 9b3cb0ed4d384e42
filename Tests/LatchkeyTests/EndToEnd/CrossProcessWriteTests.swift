import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// Every write of the stored session, not only a refresh, must respect what another process
/// sharing the store has done meanwhile: otherwise it puts back a refresh token that process
/// already spent, and the server revokes the whole session at the next refresh.
@Suite("End to end: writes of the stored session across processes")
struct CrossProcessWriteTests {
    /// A write of the stored session that is not a refresh.
    enum Write: String, CaseIterable, CustomTestStringConvertible {
        case updateUser
        case refreshUser

        var testDescription: String { rawValue }

        func perform(_ manager: SessionManager) async throws -> User {
            switch self {
            case .updateUser: try await manager.account.update(UserUpdate(data: ["nickname": .string("ada")]))
            case .refreshUser: try await manager.account.refreshUser()
            }
        }
    }

    @Test("A user write in one process after another process rotated the token keeps the newest token", arguments: Write.allCases)
    func userWriteAfterRotationElsewhere(_ write: Write) async throws {
        try await withSharedInstallation { shared in
            let server = shared.server
            // Process A signs up and keeps its session in memory, with a valid access token.
            // Process B rotates the refresh token twice, each time beyond the server's reuse
            // interval: A's token is now a spent grandparent, which the server treats as stolen.
            let processes = try await shared.twoProcesses()
            let (appProcess, app, first) = (processes.first, processes.firstManager, processes.session)
            let (extensionProcess, widget) = (processes.second, processes.secondManager)
            for _ in 0..<2 {
                server.serverClock.advance(by: 60)
                try await widget.refresh()
            }
            server.serverClock.advance(by: 60)
            let newest = try #require(try await extensionProcess.storedRefreshToken())
            #expect(await app.currentSession?.refreshToken == first.refreshToken, "A still holds the spent token")

            // A writes the user.
            let user = try await write.perform(app)

            #expect(try await appProcess.storedRefreshToken() == newest, "the spent token was not put back")
            let stored = try #require(await shared.laterProcess().launch().restore().session)
            #expect(stored.user.userMetadata == user.userMetadata, "the new user is merged into the newest stored session")
            #expect(await app.currentSession?.refreshToken == newest, "A adopted the newest session")
            // The stored token still refreshes, and the session was not revoked.
            let third = try await shared.laterProcess().launch()
            #expect(await third.restore().isSignedIn)
            let refreshed = try await third.refresh()
            #expect(refreshed.refreshToken != newest)
            #expect(await third.state.isSignedIn)
            #expect(try await app.session(minTTL: 30).user.id == first.user.id)
            #expect(try await app.account.refreshUser().id == first.user.id, "the session is alive on the server")
        }
    }
}
