import Foundation
import Testing

@testable import LatchkeyServer

/// `GET /ready` and `GET /metrics` on the real server. Each server keeps its metrics in a
/// Prometheus registry of its own, so tests run in parallel without a process-wide bootstrap.
@Suite("Readiness and metrics")
struct OperationsRoutesTests {
    static let token = "metrics-token-0123456789"

    @Test("/ready answers 200 when the database answers; /health touches no database")
    func ready() async throws {
        try await TestServer.with { server in
            // /ready gives the database 3 s; a loaded test machine can miss that once, so a few tries.
            var ready = try await server.request(.GET, "/ready")
            for _ in 0..<5 where ready.status != 200 { ready = try await server.request(.GET, "/ready") }
            #expect(ready.status == 200)
            #expect(ready["status"] as? String == "ready")
            var prefixed = try await server.request(.GET, "/auth/v1/ready")
            for _ in 0..<5 where prefixed.status != 200 { prefixed = try await server.request(.GET, "/auth/v1/ready") }
            #expect(prefixed.status == 200)
            #expect(try await server.request(.GET, "/health").status == 200)
        }
    }

    @Test("/metrics is off without a token, refuses a wrong one, and counts requests by route template, sign-ins, refreshes, reuse, 429s and mails")
    func metrics() async throws {
        try await TestServer.with { server in
            try await server.request(.GET, "/metrics").expectError(404, "not_found")
        }
        try await TestServer.with(configure: {
            $0.metricsToken = Self.token
            $0.autoconfirm = false
            $0.rateLimits.signInsPerIP = .init(count: 6, per: 300)
            $0.refreshReuseInterval = 0
        }) { server in
            #expect(try await server.request(.GET, "/metrics").status == 401)
            #expect(try await server.request(.GET, "/metrics", bearer: "wrong-token-0123456789").status == 401)

            // A sign-up that mails a confirmation, its confirmation, then sign-ins.
            #expect(try await server.request(.POST, "/signup", json: ["email": "m@example.com", "password": "correct horse battery"]).status == 200)
            let token = try server.linkToken(to: "m@example.com", type: "signup")
            _ = try await server.request(.POST, "/verify", json: ["type": "signup", "token_hash": token])
            let signedIn = try await server.signIn("m@example.com")
            #expect(signedIn.status == 200)
            let session = try #require(TestSession(signedIn))
            #expect(try await server.signIn("m@example.com", "wrong password").status == 400)
            let refreshed = try #require(TestSession(try await server.refresh(session.refreshToken)))
            #expect(try await server.refresh(refreshed.refreshToken).status == 200)
            // The first token again, two rotations and the reuse interval later: reuse detected.
            server.clock.advance(by: 1)
            try await server.refresh(session.refreshToken).expectError(400, "refresh_token_already_used")
            _ = try await server.request(.GET, "/admin/users/\(UUID().uuidString)", bearer: server.server.serviceRoleKey)
            // Methods outside HTTP's own (WebDAV's here) are one series, so they cannot grow the registry.
            _ = try await server.request(.PROPFIND, "/health")
            _ = try await server.request(.MKCOL, "/user")
            // An ID-token sign-in is a sign-in too (every grant is counted as its registration says);
            // a made-up grant type is no series at all.
            #expect(try await server.request(.POST, "/token?grant_type=id_token", json: ["provider": "google", "id_token": "x"]).status >= 400)
            #expect(try await server.request(.POST, "/token?grant_type=made_up", json: [:]).status == 400)
            var limited = 0
            for _ in 0..<6 where try await server.signIn("m@example.com").status == 429 { limited += 1 }
            #expect(limited > 0)

            let response = try await server.request(.GET, "/metrics", bearer: Self.token)
            #expect(response.status == 200)
            #expect(response.headers.first(name: "content-type")?.hasPrefix("text/plain") == true)
            let text = response.text
            func value(_ series: String) -> Double? {
                text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
            }
            #expect(value(#"latchkey_http_requests_total{method="POST",route="/signup",status="200"}"#) == 1)
            #expect(
                value(#"latchkey_http_requests_total{method="GET",route="/admin/users/{id}",status="404"}"#) == 1, "route templates, never raw paths")
            #expect(!text.contains("/admin/users/" + "0"), "\(text)")
            let madeUp = text.split(separator: "\n").filter { $0.hasPrefix(#"latchkey_http_requests_total{method="OTHER""#) }
            #expect(madeUp.compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +) == 2, "\(madeUp)")
            #expect(!text.contains("PROPFIND") && !text.contains("MKCOL"))
            #expect(value(#"latchkey_sign_ins_total{grant_type="password",result="success"}"#) ?? 0 >= 1)
            #expect(value(#"latchkey_sign_ins_total{grant_type="password",result="failure"}"#) ?? 0 >= 1)
            #expect(value(#"latchkey_sign_ins_total{grant_type="id_token",result="failure"}"#) == 1)
            #expect(!text.contains("made_up"))
            #expect(value(#"latchkey_refreshes_total{result="success"}"#) == 2)
            #expect(value(#"latchkey_refresh_token_reuse_detected_total"#) == 1)
            #expect(value(#"latchkey_rate_limited_total{route="/token"}"#) == Double(limited))
            #expect(value(#"latchkey_mails_total{result="sent"}"#) == 1)
            #expect(text.contains(#"latchkey_http_request_duration_seconds_bucket{method="POST",route="/token",le="+Inf"}"#))
            #expect(!text.contains("m@example.com") && !text.contains(session.refreshToken))

            _ = try await server.request(.GET, "/ready")
            #expect(try await server.request(.GET, "/metrics", bearer: Self.token).text.contains("latchkey_database_ready 1"))
        }
    }

    @Test("metrics go to an injected MetricsFactory: no global bootstrap")
    func injectedFactory() async throws {
        // Two servers at once, each with its own registry: neither sees the other's requests.
        try await TestServer.with(configure: { $0.metricsToken = Self.token }) { first in
            try await TestServer.with(configure: { $0.metricsToken = Self.token }) { second in
                for _ in 0..<3 { _ = try await first.request(.GET, "/health") }
                _ = try await second.request(.GET, "/health")
                #expect(try await first.request(.GET, "/metrics", bearer: Self.token).text.contains(#"route="/health",status="200"} 3"#))
                #expect(try await second.request(.GET, "/metrics", bearer: Self.token).text.contains(#"route="/health",status="200"} 1"#))
            }
        }
    }
}
