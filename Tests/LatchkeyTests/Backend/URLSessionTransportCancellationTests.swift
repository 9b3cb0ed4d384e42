import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// Cancelling a request in flight, as a sign-out, a timeout race or a dismissed screen does.
/// On Linux, Foundation's own `data(for:)` stops the process on an assertion when such a
/// request has just failed, and can deadlock when its response is arriving: these tests crash
/// or hang the test process without ``URLSession/cancellableData(for:)``.
@Suite("URLSession transport: cancelling requests in flight")
struct URLSessionTransportCancellationTests {
    /// Sends `count` requests to `url`, cancelling each at a different moment, and returns what
    /// each ended with.
    static func sendAndCancel(_ url: URL, count: Int) async -> [Result<HTTPResponse, any Error>] {
        let transport = URLSessionTransport()
        var outcomes: [Result<HTTPResponse, any Error>] = []
        for attempt in 0..<count {
            let request = Task { try await transport.send(HTTPRequest(method: "GET", url: url, timeout: 30)) }
            for _ in 0..<(attempt % 4) { await Task.yield() }
            request.cancel()
            outcomes.append(await request.result)
        }
        return outcomes
    }

    @Test("cancelling requests to a closed port: each ends as cancelled or offline, the process goes on")
    func refusedConnections() async throws {
        // Port 9 (discard) on loopback is closed on any sane test machine: each request fails at once.
        let outcomes = await Self.sendAndCancel(URL(string: "http://127.0.0.1:9/health")!, count: 200)
        for outcome in outcomes {
            guard case .failure(let error) = outcome else {
                Issue.record("a closed port answered")
                continue
            }
            #expect([BackendError.transport(.cancelled), .transport(.offline)].contains(error as? BackendError), "\(error)")
        }
    }

    @Test("cancelling requests to a live server: each ends at once, answered or cancelled, and the next request works")
    func liveServer() async throws {
        let server = try await TestServer.start()
        let health = server.baseURL.appendingPathComponent("health")
        let outcomes = await Self.sendAndCancel(health, count: 200)
        for outcome in outcomes {
            switch outcome {
            case .success(let response): #expect(response.status == 200)
            case .failure(let error): #expect(error as? BackendError == .transport(.cancelled), "\(error)")
            }
        }
        #expect(outcomes.contains { (try? $0.get()) == nil }, "some requests were cancelled before their answer")
        let after = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: health))
        #expect(after.status == 200)
        await server.stop()
    }
}
