import Foundation
import Hummingbird
import LatchkeyTesting
import NIOConcurrencyHelpers

/// A local stand-in for hCaptcha's and Turnstile's `siteverify`: a form post of `secret`,
/// `response` and `remoteip`, answered `{"success": …, "error-codes": […]}` as the providers
/// answer. A token it issued works once; a second use is `already-seen-response`, as hCaptcha
/// says (Turnstile: `timeout-or-duplicate`).
package final class FakeSiteverify: LoopbackFake {
    package let url: String
    private let issued: NIOLockedValueBox<Set<String>>
    private let received: NIOLockedValueBox<[[String: String]]>
    private let failing: NIOLockedValueBox<Bool>
    private let server: LoopbackHTTPServer
    package static let secret = "0x-test-secret"

    private init(
        url: String, issued: NIOLockedValueBox<Set<String>>, received: NIOLockedValueBox<[[String: String]]>, failing: NIOLockedValueBox<Bool>,
        server: LoopbackHTTPServer
    ) {
        self.url = url
        self.issued = issued
        self.received = received
        self.failing = failing
        self.server = server
    }

    /// A token a person would get by solving the puzzle.
    package func solve() -> String {
        let token = "P1_" + UUID().uuidString
        issued.withLockedValue { _ = $0.insert(token) }
        return token
    }

    /// The forms it was posted, oldest first.
    package var forms: [[String: String]] { received.withLockedValue { $0 } }

    package func setFailing(_ on: Bool) { failing.withLockedValue { $0 = on } }

    package static func start() async throws -> FakeSiteverify {
        let issued = NIOLockedValueBox(Set<String>())
        let received = NIOLockedValueBox<[[String: String]]>([])
        let failing = NIOLockedValueBox(false)
        let router = Router()
        router.post("/siteverify") { request, context -> Response in
            if failing.withLockedValue({ $0 }) { return Response(status: .badGateway, body: .init(byteBuffer: ByteBuffer(string: "<html>"))) }
            let text = String(buffer: try await request.body.collect(upTo: 1 << 16))
            var form: [String: String] = [:]
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                if parts.count == 2 { form[parts[0]] = parts[1] }
            }
            received.withLockedValue { $0.append(form) }
            let codes: [String] =
                if form["secret"] != FakeSiteverify.secret {
                    ["invalid-input-secret"]
                } else if let token = form["response"], issued.withLockedValue({ $0.remove(token) != nil }) {
                    []
                } else {
                    ["already-seen-response"]
                }
            let body = try JSONSerialization.data(withJSONObject: ["success": codes.isEmpty, "error-codes": codes])
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        let server = try await LoopbackHTTPServer.start(router, label: "fake-siteverify")
        return FakeSiteverify(url: server.baseURL + "/siteverify", issued: issued, received: received, failing: failing, server: server)
    }

    package func stop() async { try? await server.stop() }
}
