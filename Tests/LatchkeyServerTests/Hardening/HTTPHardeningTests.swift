import Foundation
import Testing

@testable import LatchkeyServer

/// What clients that do not speak proper HTTP, or hold connections open, get: a 4xx JSON error
/// and a closed connection, never a 500, an empty answer or a server that stops answering.
@Suite("HTTP hardening")
struct HTTPHardeningTests {
    /// How long a test waits for the server to close a connection it must close. Generous: a
    /// loaded machine runs the event loops late, and a server that never closes fails all the
    /// same; a passing test returns as soon as the connection is closed.
    static let closeDeadline = Duration.seconds(120)

    /// Sends `request` on a new connection and returns the connection once the server closed it.
    static func exchange(_ request: String, server: TestServer) async throws -> RawConnection {
        let connection = try await RawConnection.open(port: server.server.port)
        try await connection.send(request)
        #expect(try await connection.closedByServer(within: closeDeadline), "the server closes the connection")
        return connection
    }

    @Test(
        "malformed requests get a 4xx JSON error and a closed connection",
        arguments: [
            (
                "bad chunk size",
                "POST /signup HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n{}\r\n0\r\n\r\n", 400
            ),
            ("bad Content-Length", "POST /signup HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}", 400),
            ("two Content-Lengths", "POST /signup HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}", 400),
            ("unknown method", "FROBNICATE /health HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("huge headers", "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\n\r\n", 431),
            ("not HTTP at all", "\u{16}\u{03}\u{01}\u{02}\u{00} hello\r\n\r\n", 400),
        ])
    func malformed(name: String, request: String, status: Int) async throws {
        try await TestServer.with { server in
            let connection = try await Self.exchange(request, server: server)
            #expect(connection.status == status, "\(name): \(connection.text.prefix(200))")
            #expect(connection.json["error_code"] is String, "\(name): a GoTrue JSON error")
            #expect(connection.json["code"] as? Int == status)
            #expect(try await server.request(.GET, "/health").status == 200, "the server still answers")
        }
    }

    @Test("CONNECT is refused (405 JSON) and the connection closed, also after a request on the same connection")
    func connectRefused() async throws {
        try await TestServer.with { server in
            let connection = try await Self.exchange(
                "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\nGET / HTTP/1.1\r\n\r\n", server: server)
            #expect(connection.status == 405)
            #expect(connection.text.lowercased().contains("x-sb-error-code: method_not_allowed"), "\(connection.text)")
            #expect(connection.text.lowercased().contains("connection: close"))
            #expect(connection.json["error_code"] as? String == "method_not_allowed", "a GoTrue JSON body: \(connection.text)")
            #expect(connection.json["code"] as? Int == 405)
            #expect(connection.text.components(separatedBy: "HTTP/1.1 ").count == 2, "one answer, nothing tunnelled")

            // After a served request on a kept-alive connection: the first answer, then the refusal.
            let reused = try await Self.exchange(
                "GET /health HTTP/1.1\r\nHost: x\r\n\r\nCONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\nSSH-2.0-probe\r\n", server: server)
            let answers = reused.text.components(separatedBy: "HTTP/1.1 ").dropFirst()
            #expect(answers.count == 2, "\(reused.text)")
            #expect(answers.first?.hasPrefix("200") == true)
            #expect(answers.last?.hasPrefix("405") == true && answers.last?.contains("\"error_code\":\"method_not_allowed\"") == true)
            #expect(try await server.request(.GET, "/health").status == 200, "the server still answers")
        }
    }

    @Test("a known path with the wrong method is 405 method_not_allowed JSON")
    func wrongMethod() async throws {
        try await TestServer.with { server in
            for (method, path) in [("DELETE", "/health"), ("GET", "/signup"), ("PATCH", "/token?grant_type=password"), ("GET", "/auth/v1/logout")] {
                let connection = try await RawConnection.open(port: server.server.port)
                try await connection.send("\(method) \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                #expect(try await connection.closedByServer(within: Self.closeDeadline), "\(method) \(path): closed after the answer")
                #expect(connection.status == 405, "\(method) \(path): \(connection.text.prefix(200))")
                #expect(connection.json["error_code"] as? String == "method_not_allowed", "\(method) \(path)")
            }
        }
    }

    @Test("idle connections, trickled headers and trickled bodies are closed after the idle timeout")
    func timeouts() async throws {
        // 3 s, with a byte or line every 100 ms below: only a stall of seconds in this test could
        // let the idle timer (last read + 3 s) fire before the request timer (head + 3 s).
        try await TestServer.with(configure: { $0.idleTimeout = 3 }) { server in
            let silent = try await RawConnection.open(port: server.server.port)
            // Bounds are generous: a loaded machine fires timers late; never closing is the failure.
            #expect(try await silent.closedByServer(within: Self.closeDeadline), "a silent connection")

            // After a request, the connection may idle for the timeout, not longer.
            // (Each request below is written as the connection comes up: with a 1 s idle timeout a
            // loaded machine could otherwise close it before the test's first write.)
            let kept = try await RawConnection.open(port: server.server.port, sending: "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await kept.closedByServer(within: Self.closeDeadline))
            #expect(kept.status == 200)

            // Headers one line at a time, each well within the timeout: the head never completes in time.
            let slowHead = try await RawConnection.open(port: server.server.port, sending: "GET /health HTTP/1.1\r\n")
            // Closed while the trickle goes on: counted in lines sent, not in seconds, so a slow
            // machine cannot fail it (the trickle lasts 30 s at least, the timeout is 3 s).
            var linesSent = 0
            for index in 0..<300 where slowHead.isOpen {
                try? await slowHead.send("X-Slow-\(index): a\r\n")
                linesSent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(!slowHead.isOpen, "closed while the trickle went on (\(linesSent) lines sent)")

            // A body one byte at a time: 408 JSON, then closed.
            let slowBody = try await RawConnection.open(
                port: server.server.port,
                sending: "POST /signup HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{")
            for _ in 0..<150 where slowBody.isOpen {
                try? await slowBody.send(" ")
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(!slowBody.isOpen)
            #expect(slowBody.status == 408)
            #expect(slowBody.json["error_code"] as? String == "request_timeout")
            #expect(try await server.request(.GET, "/health").status == 200)
        }
    }
}
