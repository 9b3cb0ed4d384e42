import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A one-request HTTP listener on `127.0.0.1` and a random port: where the browser comes back
/// after a provider sign-in (`latchkey login --provider`). The first request to ``path`` is the
/// answer; the browser is shown a page saying it can be closed.
final class LoopbackCallback: Sendable {
    /// The port the system gave.
    let port: Int
    let path: String
    private let channel: any Channel
    private let outcome: CallbackOutcome

    private init(port: Int, path: String, channel: any Channel, outcome: CallbackOutcome) {
        self.port = port
        self.path = path
        self.channel = channel
        self.outcome = outcome
    }

    /// The redirect URL to give the server: `http://127.0.0.1:PORT/callback`.
    var redirectURL: URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Listens on `127.0.0.1` and a port the system picks.
    static func start(path: String = "/callback") async throws -> LoopbackCallback {
        let outcome = CallbackOutcome(promise: MultiThreadedEventLoopGroup.singleton.next().makePromise(of: URL?.self))
        let box = NIOLockedValueBox(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(CallbackHandler(path: path, port: box.withLockedValue { $0 }, outcome: outcome))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw ClientFailure(.other, "Could not listen on 127.0.0.1 for the browser's answer.")
        }
        box.withLockedValue { $0 = port }
        return LoopbackCallback(port: port, path: path, channel: channel, outcome: outcome)
    }

    /// The URL the browser came back with, or `nil` when none came within `timeout` seconds.
    func wait(timeout: TimeInterval) async throws -> URL? {
        let outcome = outcome
        let timer = Task {
            try await Task.sleep(nanoseconds: UInt64(max(timeout, 0) * 1_000_000_000))
            outcome.finish(nil)
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await outcome.promise.futureResult.get()
        } onCancel: {
            outcome.finish(nil)
        }
    }

    /// Stops listening.
    func close() async {
        try? await channel.close()
    }
}

/// The listener's one answer, given once.
private final class CallbackOutcome: Sendable {
    let promise: EventLoopPromise<URL?>
    private let done = NIOLockedValueBox(false)

    init(promise: EventLoopPromise<URL?>) {
        self.promise = promise
    }

    /// Gives the answer; later calls do nothing.
    func finish(_ url: URL?) {
        let first = done.withLockedValue { done in
            defer { done = true }
            return !done
        }
        if first { promise.succeed(url) }
    }
}

/// Answers the browser: the callback path with a page to close, anything else 404.
private final class CallbackHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let path: String
    let port: Int
    let outcome: CallbackOutcome
    private var head: HTTPRequestHead?

    init(path: String, port: Int, outcome: CallbackOutcome) {
        self.path = path
        self.port = port
        self.outcome = outcome
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let requestPath = head.uri.split(separator: "?", maxSplits: 1).first.map { String($0) } ?? head.uri
        let status: HTTPResponseStatus
        let page: String
        if head.method == .GET, requestPath == path, let url = URL(string: "http://127.0.0.1:\(port)\(head.uri)") {
            let failed = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.contains { $0.name == "error" } ?? false
            status = .ok
            page =
                failed
                ? "The sign-in did not complete. You can close this tab; the terminal says why."
                : "Signed in. You can close this tab and return to the terminal."
            outcome.finish(url)
        } else {
            status = .notFound
            page = "Not found."
        }
        let body = "<!doctype html><meta charset=\"utf-8\"><title>latchkey</title><p>\(page)</p>\n"
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Cache-Control", value: "no-store")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
