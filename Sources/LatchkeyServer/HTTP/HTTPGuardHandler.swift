import Foundation
import HTTPTypes
import LatchkeyWire
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Guards each HTTP/1 connection, between the HTTP codec and Hummingbird's request handling:
///
/// - A request that is malformed (bad request line or method, bad `Content-Length`, bad chunk
///   size, headers over the limit) is answered with GoTrue's JSON error — 400 `bad_request`, or
///   431 `request_header_fields_too_large` — and the connection is closed; never a 500 or an
///   empty body. (Hummingbird alone answers an empty 400, or a 500 when the body is the bad part.)
/// - `CONNECT` is refused — 405 with GoTrue's JSON error, `method_not_allowed` — and the
///   connection closed: this server is no proxy. (SwiftNIO's response encoder sends no body in
///   any answer to CONNECT, as a tunnel's answer has none; this answer is written below it.)
/// - A request must arrive whole (head to end of body) within `requestTimeout` of its head, or
///   it is answered 408 `request_timeout` and the connection closed, so a client that trickles a
///   body cannot hold a connection. (Hummingbird's idle timeout closes connections idle between
///   requests or that never send a whole head.)
final class HTTPGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let requestTimeout: TimeAmount
    /// Between a response's head and its end: no other response may be written then.
    private var responding = false
    /// Between a request's head and its end.
    private var readingRequest = false
    /// Set once the connection is being closed by this handler: everything else is dropped.
    private var refused = false
    /// Requests passed on whose response has not ended yet.
    private var unanswered = 0
    /// A CONNECT arrived while earlier requests were unanswered: refused once they are.
    private var connectPending = false
    private var requestTimer: Scheduled<Void>?

    init(requestTimeout: TimeAmount) {
        self.requestTimeout = requestTimeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused, !connectPending else { return }
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            if head.method == .connect {
                // Earlier requests on the connection are answered first, in order.
                if unanswered > 0 { connectPending = true } else { refuseConnect(context) }
                return
            }
            unanswered += 1
            readingRequest = true
            requestTimer?.cancel()
            let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            requestTimer = context.eventLoop.scheduleTask(in: requestTimeout) {
                let (handler, context) = loopBound.value
                handler.requestTimer = nil
                guard handler.readingRequest else { return }
                handler.refuse(context, AuthError(.requestTimeout, "request_timeout", "The request did not arrive in time"))
            }
        case .body:
            break
        case .end:
            readingRequest = false
            requestTimer?.cancel()
            requestTimer = nil
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !refused else { return }
        refuse(context, Self.error(for: parseError))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !refused else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(let head):
            responding = true
            // An informational (1xx) head is followed by the real one.
            if head.status.kind == .informational { responding = false }
        case .body: break
        case .end:
            responding = false
            unanswered = max(0, unanswered - 1)
            if connectPending, unanswered == 0 {
                context.write(data, promise: promise)
                refuseConnect(context)
                return
            }
        }
        context.write(data, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        requestTimer?.cancel()
        requestTimer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        requestTimer?.cancel()
        requestTimer = nil
        context.fireChannelInactive()
    }

    /// Answers `error` (unless a response is being written, which cannot be interrupted) and
    /// closes the connection.
    private func refuse(_ context: ChannelHandlerContext, _ error: AuthError) {
        refused = true
        readingRequest = false
        requestTimer?.cancel()
        requestTimer = nil
        guard !responding, context.channel.isActive else {
            context.close(promise: nil)
            return
        }
        let body = Self.body(for: error)
        var fields: HTTPFields = [
            .contentType: "application/json", .contentLength: String(body.readableBytes), .connection: "close",
        ]
        fields[.supabaseErrorCode] = error.code
        context.write(wrapOutboundOut(.head(HTTPResponse(status: error.status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    /// Answers a CONNECT with a 405 and its JSON body, written as bytes beneath SwiftNIO's HTTP
    /// response encoder (which would drop the body), then closes the connection.
    private func refuseConnect(_ context: ChannelHandlerContext) {
        refused = true
        readingRequest = false
        requestTimer?.cancel()
        requestTimer = nil
        guard !responding, context.channel.isActive,
            let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        else {
            context.close(promise: nil)
            return
        }
        let error = AuthError(.methodNotAllowed, "method_not_allowed", "CONNECT is not supported")
        let body = Self.body(for: error)
        var bytes = context.channel.allocator.buffer(capacity: 256 + body.readableBytes)
        bytes.writeString(
            "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nContent-Length: \(body.readableBytes)\r\n"
                + "\(HTTPField.Name.supabaseErrorCode.canonicalName): \(error.code)\r\nConnection: close\r\n\r\n")
        bytes.writeImmutableBuffer(body)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        encoder.writeAndFlush(NIOAny(IOData.byteBuffer(bytes))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    /// GoTrue's error for a request the HTTP parser refused.
    static func error(for parseError: HTTPParserError) -> AuthError {
        switch parseError {
        case .headerOverflow:
            AuthError(.requestHeaderFieldsTooLarge, "request_header_fields_too_large", "Request headers are too large")
        case .invalidMethod:
            AuthError(.badRequest, "bad_request", "Malformed HTTP request: unknown method")
        case .invalidContentLength, .unexpectedContentLength:
            AuthError(.badRequest, "bad_request", "Malformed HTTP request: invalid Content-Length")
        case .invalidChunkSize:
            AuthError(.badRequest, "bad_request", "Malformed HTTP request: invalid chunk size")
        default:
            AuthError(.badRequest, "bad_request", "Malformed HTTP request")
        }
    }

    static func body(for error: AuthError) -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let response = ErrorResponse.standard(status: Int(error.status.code), code: error.code, message: error.message)
        return ByteBuffer(bytes: (try? encoder.encode(response)) ?? Data("{}".utf8))
    }
}
