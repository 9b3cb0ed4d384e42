import Foundation
import LatchkeyTesting
import LatchkeyWire
import Logging
import Testing

@testable import LatchkeyServer

/// The refresh grant without HTTP: a refresh counts against its session's limit inside the
/// store's rotation transaction, once, with the counter the server gives that store.
@Suite("RefreshGrant")
struct RefreshGrantTests {
    /// A grant over `base` wrapped so that it plans every rotation twice (``RetryingStore``),
    /// counting with the counter the server chooses for `base`.
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
            let counter = LatchkeyApplication.rateLimitCounter(for: base, jwtSecret: secret)
            grant = RefreshGrant(
                store: store, clock: clock, tokens: OpaqueTokens(jwtSecret: secret),
                limits: RateLimits(counter: counter, clock: clock, limits: limits), sessions: sessions,
                reuseInterval: 10, logger: logger)
        }

        func refresh(_ token: String) async throws -> String {
            try await grant.session(for: RefreshGrantBody(refresh_token: token), ipAddress: "127.0.0.1").refresh_token
        }
    }

    @Test(
        "a refresh counts once against its session's limit; a refused one is refused before its plan runs and spends nothing",
        arguments: StoreKind.available)
    func limitCountsOncePerRefresh(_ kind: StoreKind) async throws {
        try await kind.withStore { base in
            var limits = RateLimitConfiguration()
            limits.refreshesPerSession = .init(count: 3, per: 300)
            let fixture = await Fixture(base, limits: limits)
            let now = fixture.clock.now()
            let user = UserRecord(email: "once@example.com", passwordHash: nil, emailConfirmedAt: now, createdAt: now, updatedAt: now)
            try await fixture.store.insertUser(user, audit: nil)
            var token = try await fixture.sessions.start(for: user, method: "password", ipAddress: "127.0.0.1").refresh_token

            for _ in 0..<3 { token = try await fixture.refresh(token) }
            #expect(fixture.store.planRuns == 6, "every rotation was planned twice, and counted once")
            let limited = await #expect(throws: AuthError.self) { try await fixture.refresh(token) }
            #expect(limited?.code == "over_request_rate_limit")
            #expect(fixture.store.planRuns == 6, "the refused refresh was counted before its plan ran")

            // The refused refresh wrote nothing: once the window has passed, the same token is
            // still the session's active one and rotates.
            fixture.clock.advance(by: 301)
            let next = try await fixture.refresh(token)
            #expect(next != token)
        }
    }

    @Test("an unknown token is refused and counts nothing; an empty one never reaches the store")
    func unknownToken() async throws {
        try await StoreKind.sqlite.withStore { base in
            var limits = RateLimitConfiguration()
            limits.refreshesPerSession = .init(count: 1, per: 300)
            let fixture = await Fixture(base, limits: limits)
            await #expect(throws: AuthError.refreshTokenInvalid) { try await fixture.refresh("") }
            #expect(fixture.store.planRuns == 0)
            for _ in 0..<3 {
                await #expect(throws: AuthError.refreshTokenNotFound) { try await fixture.refresh("never-issued-token") }
            }
        }
    }
}
