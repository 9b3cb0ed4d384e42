import Foundation
import LatchkeyTesting
import Logging
import Testing

@testable import LatchkeyServer

/// `--trusted-proxy`: `X-Forwarded-For` is believed only from a trusted peer, hop by hop from
/// the right; rate limits, the audit log and the access log use the address found.
@Suite("Trusted proxies and X-Forwarded-For")
struct TrustedProxyTests {
    @Test("CIDR parsing, IPv4 and IPv6, and the right-most untrusted hop")
    func cidrAndWalk() throws {
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8", "192.168.1.7", "fd00::/8", "::1"])
        #expect(proxies.trusts("10.255.0.1"))
        #expect(proxies.trusts("::ffff:10.1.2.3"), "IPv4-mapped IPv6 is its IPv4 address")
        #expect(!proxies.trusts("11.0.0.1"))
        #expect(proxies.trusts("192.168.1.7") && !proxies.trusts("192.168.1.8"))
        #expect(proxies.trusts("fd12:3456::1") && !proxies.trusts("fe80::1"))
        #expect(proxies.trusts("::1") && !proxies.trusts("::2"))
        #expect(try IPNetwork(parsing: "2001:db8::/32").contains("2001:db8:ffff::1"))
        for bad in ["10.0.0.0/33", "nonsense", "::/129", "1.2.3/8", ""] {
            #expect(throws: ConfigurationError.self) { try IPNetwork(parsing: bad) }
        }

        // An untrusted peer: the header is ignored.
        #expect(proxies.clientAddress(peer: "203.0.113.5", forwardedFor: ["1.1.1.1"]) == "203.0.113.5")
        // A trusted peer: the right-most untrusted hop, skipping trusted proxies.
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["6.6.6.6, 198.51.100.7, 10.0.0.9"]) == "198.51.100.7")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["6.6.6.6", "198.51.100.7"]) == "198.51.100.7", "several headers are one list")
        #expect(proxies.clientAddress(peer: "::1", forwardedFor: ["2001:db8::5, fd00::1"]) == "2001:db8::5")
        // Garbage stops the walk at the hop that reported it.
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["6.6.6.6, not-an-ip, 10.0.0.2"]) == "10.0.0.2")
        // Every hop trusted: the left-most.
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["10.0.0.3, 10.0.0.2"]) == "10.0.0.3")
        #expect(TrustedProxies([]).clientAddress(peer: "127.0.0.1", forwardedFor: ["1.2.3.4"]) == "127.0.0.1", "never trusted by default")
        #expect(throws: ConfigurationError.self) {
            var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp"))
            configuration.trustedProxies = ["10.0.0.0/99"]
            try configuration.validate()
        }
    }

    func auditIP(_ server: TestServer) async throws -> String? {
        let audit = try await server.request(.GET, "/admin/audit", bearer: server.server.serviceRoleKey)
        return audit.jsonArray?.first?["ip_address"] as? String
    }

    @Test("without --trusted-proxy a spoofed X-Forwarded-For changes nothing: audit and rate limit use the peer")
    func spoofIgnored() async throws {
        try await TestServer.with(configure: { $0.rateLimits.signInsPerIP = .init(count: 3, per: 300) }) { server in
            try await server.signUp("spoof@example.com")
            for index in 0..<2 {
                let response = try await server.request(
                    .POST, "/token?grant_type=password", json: ["email": "spoof@example.com", "password": "correct horse battery"],
                    headers: [("X-Forwarded-For", "198.51.100.\(index)")])
                #expect(response.status == 200)
            }
            #expect(try await auditIP(server) == "127.0.0.1")
            let limited = try await server.request(
                .POST, "/token?grant_type=password", json: ["email": "spoof@example.com", "password": "correct horse battery"],
                headers: [("X-Forwarded-For", "198.51.100.99")])
            #expect(limited.status == 429, "a new forged address does not escape the limit")
        }
    }

    @Test("via a trusted proxy the right-most untrusted address is the client: audit log, access log, rate limits per client")
    func trustedProxy() async throws {
        let logs = LogCapture()
        try await TestServer.with(
            logger: logs.logger,
            configure: {
                $0.trustedProxies = ["127.0.0.1/32", "10.0.0.0/8"]
                $0.rateLimits.signInsPerIP = .init(count: 3, per: 300)
            }
        ) { server in
            _ = try await server.request(
                .POST, "/signup", json: ["email": "proxied@example.com", "password": "correct horse battery"],
                headers: [("X-Forwarded-For", "192.0.2.50")])
            func signIn(from chain: String) async throws -> TestResponse {
                try await server.request(
                    .POST, "/token?grant_type=password", json: ["email": "proxied@example.com", "password": "correct horse battery"],
                    headers: [("X-Forwarded-For", chain)])
            }
            // A forged left-most entry is ignored: 198.51.100.7 is what the trusted 10.0.0.9 saw.
            #expect(try await signIn(from: "6.6.6.6, 198.51.100.7, 10.0.0.9").status == 200)
            #expect(try await auditIP(server) == "198.51.100.7")
            #expect(logs.lines.contains { $0.contains("path=/token") && $0.contains("client_ip=198.51.100.7") && $0.contains("status=200") })
            #expect(try await signIn(from: "198.51.100.7").status == 200)
            // The sign-up counted for 192.0.2.50; 198.51.100.7 has used 2 of 3.
            #expect(try await signIn(from: "7.7.7.7, 198.51.100.7").status == 200)
            #expect(try await signIn(from: "198.51.100.7").status == 429, "the real client is limited")
            #expect(try await signIn(from: "198.51.100.8").status == 200, "another client behind the same proxy is not")
        }
    }

    @Test("the access log: one info line per request, method, path without query, status, duration, client IP; never a token")
    func accessLog() async throws {
        let logs = LogCapture()
        try await TestServer.with(logger: logs.logger) { server in
            _ = try await server.request(.GET, "/verify?type=signup&token=supersecrettokenvalue&redirect_to=https://x.example")
            _ = try await server.request(.GET, "/auth/v1/health?apikey=secretapikeyvalue")
            let session = try await server.signUp("logged@example.com")
            _ = try await server.refresh(session.refreshToken)
            let requests = logs.lines.filter { $0.contains("request") && $0.contains("method=") }
            #expect(requests.contains { $0.hasPrefix("info request") && $0.contains("method=GET") && $0.contains("path=/verify ") })
            #expect(
                requests.contains {
                    $0.contains("path=/health") && $0.contains("status=200") && $0.contains("duration_ms=") && $0.contains("client_ip=127.0.0.1")
                })
            #expect(requests.contains { $0.contains("path=/verify") && !$0.contains("status=200") }, "error answers are logged with their status")
            let all = logs.lines.joined(separator: "\n")
            for secret in ["supersecrettokenvalue", "secretapikeyvalue", session.refreshToken, session.accessToken, "redirect_to"] {
                #expect(!all.contains(secret))
            }
        }
    }
}
