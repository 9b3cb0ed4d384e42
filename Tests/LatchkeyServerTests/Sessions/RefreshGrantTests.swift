import Foundation
import LatchkeyTesting
import LatchkeyWire
import Logging
import Testing

@testable import LatchkeyServer

/// The refresh grant without HTTP: rate limiting happens once per refresh, outside the store's
/// transaction.
@Suite("RefreshGrant")
struct RefreshGrantTests {
    /// A grant over a SQLite store that plans every rotation twice (``RetryingStore``).
    struct Fixture {
        let store: RetryingStore
        let clock = ManualServerClock()
        let sessions: SessionIssuer
        let grant: RefreshGrant

        init(_ base: any AuthStore, limits: RateLimitConfiguration) async {
            let secret = String(repeating: "g", count: 40)
            let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            store = RetryingStore(base)
            sessions = SessionIssuer(
                store: store, clock: clock, signer: await TokenSigner(secret: secret, origin: ServerOrigin("http://test")),
                accessTokenTTL: 3600, sessionTimebox: nil, logger: logger)
            grant = RefreshGrant(
                store: store, clock: clock, tokens: OpaqueTokens(jwtSecret: secret),
                limits: RateLimits(counter: InMemoryRateLimitCounter(), clock: clock, limits: limits), sessions: sessions,
                reuseInterval: 10, logger: logger)
        }

        func refresh(_ token: String) async throws -> String {
            try await grant.session(for: RefreshGrantBody(refresh_token: token), ipAddress: "127.0.0.1").refresh_token
        }
    }

    @Test("a refresh counts once against its session's limit, even when the store runs the rotation again")
    func limitCountsOncePerRefresh() async throws {
        try await StoreKind.sqlite.withStore { base in
            var limits = RateLimitConfiguration()
            limits.refreshesPerSession = .init(count: 3, per: 300)
            let fixture = await Fixture(base, limits: limits)
            let now = fixture.clock.now()
            let user = UserRecord(email: "once@example.com", passwordHash: nil, emailConfirmedAt: now, createdAt: now, updatedAt: now)
            try await fixture.store.insertUser(user, audit: nil)
            var token = try await fixture.sessions.start(for: user, method: "password", ipAddress: "127.0.0.1").refresh_token

            for _ in 0..<3 { token = try await fixture.refresh(token) }
            #expect(fixture.store.planRuns == 6, "every rotation was planned twice")
            let limited = await #expect(throws: AuthError.self) { try await fixture.refresh(token) }
            #expect(limited?.code == "over_request_rate_limit")
            #expect(fixture.store.planRuns == 6, "a refused refresh never reaches the store's transaction")
        }
    }

    @Test("an unknown or empty token is refused before any transaction")
    func unknownToken() async throws {
        try await StoreKind.sqlite.withStore { base in
            let fixture = await Fixture(base, limits: .default)
            await #expect(throws: AuthError.refreshTokenNotFound) { try await fixture.refresh("never-issued-token") }
            await #expect(throws: AuthError.refreshTokenInvalid) { try await fixture.refresh("") }
            #expect(fixture.store.planRuns == 0)
        }
    }
}
