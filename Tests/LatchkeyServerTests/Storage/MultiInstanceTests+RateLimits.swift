import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// Rate limits with several instances on one PostgreSQL database: counted in the database, so a
/// client spreading its requests over the instances meets the limit at the count one instance
/// would refuse, and a restarted instance forgets nothing.
extension MultiInstanceTests {
    /// Sign-ins per IP: 6 per 5 minutes (the sign-up counts as one).
    static func fewSignIns(_ configuration: inout ServerConfiguration) {
        configuration.rateLimits.signInsPerIP = .init(count: 6, per: 300)
    }

    /// Signs up on the first instance, then signs in round-robin over `instances` until one
    /// answers 429: the attempt that was refused (0 is the first sign-in) and its Retry-After.
    static func firstRefusedSignIn(_ instances: [TestServer]) async throws -> (attempt: Int, retryAfter: Int?) {
        try await instances[0].signUp("counted@example.com")
        for attempt in 0..<20 {
            let response = try await instances[attempt % instances.count].signIn("counted@example.com")
            if response.status == 429 {
                #expect(response.errorCode == "over_request_rate_limit")
                return (attempt, response.headers.first(name: "Retry-After").flatMap { Int($0) })
            }
            #expect(response.status == 200, "\(response.text)")
        }
        throw TestFailure("no sign-in was refused in 20 attempts")
    }

    @Test("sign-ins sent round-robin to two instances are refused at the count one instance refuses")
    func signInsSharedAcrossInstances() async throws {
        let alone = try await TestServer.with(configure: Self.fewSignIns) { server in try await Self.firstRefusedSignIn([server]) }
        let onPostgres = try await PostgresTestDatabase.with { url in
            try await TestServer.with(configure: {
                Self.instance(url)(&$0)
                Self.fewSignIns(&$0)
            }) { server in
                try await Self.firstRefusedSignIn([server])
            }
        }
        let shared = try await PostgresTestDatabase.with { url in
            let clock = ManualServerClock()
            return try await TestServer.with(
                clock: clock,
                configure: {
                    Self.instance(url)(&$0)
                    Self.fewSignIns(&$0)
                }
            ) { a in
                try await TestServer.with(
                    clock: clock,
                    configure: {
                        Self.instance(url)(&$0)
                        Self.fewSignIns(&$0)
                    }
                ) { b in
                    let refused = try await Self.firstRefusedSignIn([a, b])
                    // Both instances refuse now, whichever counted the last sign-in.
                    #expect(try await a.signIn("counted@example.com").status == 429)
                    #expect(try await b.signIn("counted@example.com").status == 429)
                    // And both admit again once the window has passed.
                    a.clock.advance(by: 301)
                    #expect(try await b.signIn("counted@example.com").status == 200)
                    return refused
                }
            }
        }
        #expect(alone.attempt == 5, "the sign-up and five sign-ins fill the six places")
        #expect(onPostgres.attempt == alone.attempt && shared.attempt == alone.attempt)
        #expect(alone.retryAfter == 300)
        #expect(onPostgres.retryAfter == alone.retryAfter && shared.retryAfter == alone.retryAfter)
    }

    @Test("failed passwords on either instance lock the account on both, with Retry-After")
    func failedPasswordsSharedAcrossInstances() async throws {
        let clock = ManualServerClock()
        try await PostgresTestDatabase.with { url in
            let configure: (inout ServerConfiguration) -> Void = {
                Self.instance(url)(&$0)
                $0.rateLimits.failedPasswordAttemptsPerAccount = .init(count: 3, per: 300)
            }
            try await TestServer.with(clock: clock, configure: configure) { a in
                try await TestServer.with(clock: clock, configure: configure) { b in
                    try await a.signUp("guess@example.com", "the real password")
                    // A success resets the count on every instance.
                    #expect(try await a.signIn("guess@example.com", "wrong guess").errorCode == "invalid_credentials")
                    #expect(try await a.signIn("guess@example.com", "wrong guess").errorCode == "invalid_credentials")
                    #expect(try await b.signIn("guess@example.com", "the real password").status == 200)
                    for instance in [a, b, a] {
                        #expect(try await instance.signIn("guess@example.com", "wrong guess").errorCode == "invalid_credentials")
                    }
                    for instance in [b, a] {
                        let locked = try await instance.signIn("guess@example.com", "the real password")
                        locked.expectError(429, "over_request_rate_limit")
                        #expect(locked.headers.first(name: "Retry-After") == "300")
                    }
                    clock.advance(by: 301)
                    #expect(try await b.signIn("guess@example.com", "the real password").status == 200)
                }
            }
        }
    }

    @Test("an email sent by one instance holds the next for the interval on the other")
    func emailIntervalSharedAcrossInstances() async throws {
        try await Self.withTwoInstances { a, b in
            #expect(try await a.request(.POST, "/recover", json: ["email": "mail@example.com"]).status == 200)
            let held = try await b.request(.POST, "/recover", json: ["email": "mail@example.com"])
            held.expectError(429, "over_email_send_rate_limit")
            #expect(held.headers.first(name: "Retry-After") == "60")
            a.clock.advance(by: 61)
            #expect(try await b.request(.POST, "/recover", json: ["email": "mail@example.com"]).status == 200)
            #expect(try await a.request(.POST, "/recover", json: ["email": "mail@example.com"]).status == 429)
        }
    }

    @Test("refreshes of one session count against its limit on every instance")
    func refreshesSharedAcrossInstances() async throws {
        let clock = ManualServerClock()
        try await PostgresTestDatabase.with { url in
            let configure: (inout ServerConfiguration) -> Void = {
                Self.instance(url)(&$0)
                $0.rateLimits.refreshesPerSession = .init(count: 4, per: 300)
            }
            try await TestServer.with(clock: clock, configure: configure) { a in
                try await TestServer.with(clock: clock, configure: configure) { b in
                    var token = try await a.signUp("refresh@example.com").refreshToken
                    for index in 0..<4 {
                        let instance = index.isMultiple(of: 2) ? a : b
                        token = try #require(TestSession(try await instance.refresh(token))).refreshToken
                    }
                    let refused = try await a.refresh(token)
                    refused.expectError(429, "over_request_rate_limit")
                    #expect(refused.headers.first(name: "Retry-After") == "300")
                    #expect(try await b.refresh(token).status == 429)
                }
            }
        }
    }

    @Test("an instance restarted on the same database keeps counting where it stopped")
    func restartKeepsCounts() async throws {
        try await PostgresTestDatabase.with { url in
            let clock = ManualServerClock()
            let configure: (inout ServerConfiguration) -> Void = {
                Self.instance(url)(&$0)
                Self.fewSignIns(&$0)
            }
            try await TestServer.with(clock: clock, configure: configure) { first in
                try await first.signUp("restart@example.com")
                for _ in 0..<3 { #expect(try await first.signIn("restart@example.com").status == 200) }
            }
            try await TestServer.with(clock: clock, configure: configure) { (second: TestServer) async throws -> Void in
                for _ in 0..<2 { #expect(try await second.signIn("restart@example.com").status == 200) }
                let refused = try await second.signIn("restart@example.com")
                refused.expectError(429, "over_request_rate_limit")
                #expect(refused.headers.first(name: "Retry-After") == "300")
            }
        }
    }
}
