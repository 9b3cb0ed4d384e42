import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// One SMTP conversation per call of ``deliver(from:to:data:)`` (RFC 5321): greeting, `EHLO`
/// (`HELO` when refused), `STARTTLS` or implicit TLS, `AUTH PLAIN` or `AUTH LOGIN`, `MAIL FROM`,
/// `RCPT TO`, `DATA`, `QUIT`. Every reply is awaited at most ``SMTPSettings/replyTimeout``;
/// every failure is an ``SMTPError``.
struct SMTPClient: Sendable {
    let settings: SMTPSettings
    let tlsConfiguration: TLSConfiguration
    let eventLoopGroup: any EventLoopGroup

    /// Delivers `data` (a complete RFC 5322 message, any line endings) from `sender` to
    /// `recipient`. Returns the server's final reply text (the queue id, often).
    @discardableResult
    func deliver(from sender: String, to recipient: String, data: String) async throws(SMTPError) -> String {
        for address in [sender, recipient] where !MailAddress.isValidAddress(address) {
            throw SMTPError(stage: .mailFrom, kind: .permanent, message: "not a usable address: \(MailAddress.printable(address))")
        }
        let tlsContext: NIOSSLContext
        do {
            tlsContext = try NIOSSLContext(configuration: tlsConfiguration)
        } catch {
            throw SMTPError(stage: .tlsHandshake, kind: .permanent, message: "TLS configuration unusable: \(error)")
        }
        let serverHostname = Self.isIPAddress(settings.host) ? nil : settings.host
        let implicitTLS = settings.security == .implicitTLS
        let channel: NIOAsyncChannel<String, ByteBuffer>
        let handshake: EventLoopFuture<Void>?
        do {
            (channel, handshake) = try await ClientBootstrap(group: eventLoopGroup)
                .connectTimeout(TimeAmount(settings.connectTimeout))
                .connect(host: settings.host, port: settings.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        var handshake: EventLoopFuture<Void>?
                        if implicitTLS {
                            handshake = try SMTPWire.addTLS(to: channel, context: tlsContext, serverHostname: serverHostname)
                        }
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPLineDecoder()))
                        return (try NIOAsyncChannel<String, ByteBuffer>(wrappingChannelSynchronously: channel), handshake)
                    }
                }
        } catch {
            throw SMTPError(
                stage: .connect, kind: .transient, message: "cannot connect to \(settings.host):\(settings.port): \(Self.describe(error))")
        }
        let timedOut = NIOLockedValueBox(false)
        do {
            return try await channel.executeThenClose { inbound, outbound in
                var wire = SMTPWire(
                    channel: channel.channel, inbound: inbound.makeAsyncIterator(), outbound: outbound,
                    replyTimeout: settings.replyTimeout, timedOut: timedOut, secrets: secrets)
                if let handshake { try await wire.awaitHandshake(handshake) }
                return try await converse(
                    &wire, tlsContext: tlsContext, serverHostname: serverHostname, sender: sender, recipient: recipient, data: data)
            }
        } catch let error as SMTPError {
            throw error
        } catch {
            // Only closing the channel can end up here.
            throw SMTPError(stage: .quit, kind: .transient, message: Self.describe(error))
        }
    }

    /// Strings that must never appear in an error: the password, the user name, their base64.
    private var secrets: [String] {
        var values: [String] = []
        if let password = settings.password?.value, password.count >= 4 {
            values += [password, Data(password.utf8).base64EncodedString()]
        }
        if let username = settings.username, username.count >= 4 {
            values += [username, Data(username.utf8).base64EncodedString()]
        }
        if let username = settings.username, let password = settings.password?.value {
            values.append(Data("\u{0}\(username)\u{0}\(password)".utf8).base64EncodedString())
        }
        return values.sorted { $0.count > $1.count }
    }

    private func converse(
        _ wire: inout SMTPWire, tlsContext: NIOSSLContext, serverHostname: String?, sender: String, recipient: String, data: String
    ) async throws(SMTPError) -> String {
        let greeting = try await wire.reply(at: .greeting)
        guard greeting.code == 220 else { throw .rejected(greeting, at: .greeting) }
        let clientName = Self.addressLiteral(wire.channel.localAddress)

        var extensions = try await hello(&wire, clientName: clientName)
        var encrypted = settings.security == .implicitTLS
        if case .startTLS(let required) = settings.security {
            if extensions.contains(where: { $0.uppercased() == "STARTTLS" }) {
                try await wire.command("STARTTLS", at: .startTLS, expecting: [220])
                try await wire.startTLS(context: tlsContext, serverHostname: serverHostname)
                encrypted = true
                // RFC 3207 §4.2: forget what was learnt before TLS and ask again.
                extensions = try await hello(&wire, clientName: clientName)
            } else if required {
                throw SMTPError(
                    stage: .startTLS, kind: .permanent,
                    message: "the server does not offer STARTTLS; add ?starttls=optional to the SMTP URL to send without TLS")
            }
        }

        if let username = settings.username {
            try await authenticate(&wire, username: username, password: settings.password?.value ?? "", extensions: extensions, encrypted: encrypted)
        }

        try await wire.command("MAIL FROM:<\(sender)>", at: .mailFrom, expecting: [250])
        try await wire.command("RCPT TO:<\(recipient)>", at: .rcptTo, expecting: [250, 251])
        try await wire.command("DATA", at: .data, expecting: [354])
        try await wire.write(SMTPDataEncoding.stuffed(data), at: .message)
        let accepted = try await wire.reply(at: .message)
        guard accepted.code == 250 else { throw .rejected(accepted, at: .message) }
        // The message is accepted: a failed QUIT changes nothing.
        _ = try? await wire.command("QUIT", at: .quit, expecting: [221])
        return accepted.text
    }

    /// `EHLO`, or `HELO` when the server does not know `EHLO`; the extension keywords offered.
    private func hello(_ wire: inout SMTPWire, clientName: String) async throws(SMTPError) -> [String] {
        try await wire.send("EHLO \(clientName)", at: .ehlo)
        let reply = try await wire.reply(at: .ehlo)
        if reply.code == 250 { return Array(reply.lines.dropFirst()) }
        guard (500...504).contains(reply.code) else { throw .rejected(reply, at: .ehlo) }
        try await wire.command("HELO \(clientName)", at: .ehlo, expecting: [250])
        return []
    }

    private func authenticate(
        _ wire: inout SMTPWire, username: String, password: String, extensions: [String], encrypted: Bool
    ) async throws(SMTPError) {
        guard encrypted || settings.isLoopback else {
            throw SMTPError(stage: .auth, kind: .permanent, message: "refusing to send credentials without TLS to a server that is not on loopback")
        }
        let offered = Self.authMechanisms(extensions)
        guard !offered.isEmpty else {
            throw SMTPError(stage: .auth, kind: .permanent, message: "the server does not offer AUTH, but the SMTP URL has credentials")
        }
        if offered.contains("PLAIN") {
            let response = Data("\u{0}\(username)\u{0}\(password)".utf8).base64EncodedString()
            try await wire.command("AUTH PLAIN \(response)", at: .auth, expecting: [235])
        } else if offered.contains("LOGIN") {
            try await wire.command("AUTH LOGIN", at: .auth, expecting: [334])
            try await wire.command(Data(username.utf8).base64EncodedString(), at: .auth, expecting: [334])
            try await wire.command(Data(password.utf8).base64EncodedString(), at: .auth, expecting: [235])
        } else {
            throw SMTPError(
                stage: .auth, kind: .permanent,
                message: "the server offers no AUTH mechanism this client speaks (PLAIN, LOGIN): \(offered.sorted().joined(separator: " "))")
        }
    }

    /// The mechanisms of `AUTH PLAIN LOGIN` (and the old `AUTH=PLAIN LOGIN`) lines.
    static func authMechanisms(_ extensions: [String]) -> Set<String> {
        var mechanisms = Set<String>()
        for line in extensions {
            let words = line.uppercased().split(whereSeparator: { $0 == " " || $0 == "=" })
            if words.first == "AUTH" { mechanisms.formUnion(words.dropFirst().map(String.init)) }
        }
        return mechanisms
    }

    /// `[127.0.0.1]` or `[IPv6:::1]`: the EHLO argument for a client without a DNS name.
    static func addressLiteral(_ address: SocketAddress?) -> String {
        switch address {
        case .v4?: "[\(address?.ipAddress ?? "127.0.0.1")]"
        case .v6?: "[IPv6:\(address?.ipAddress ?? "::1")]"
        default: "[127.0.0.1]"
        }
    }

    static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? NIOSSLError { return "TLS: \(error)" }
        if let error = error as? IOError { return error.description }
        if error is ChannelError { return "connection: \(error)" }
        return "\(type(of: error)): \(error)"
    }
}

/// The connection's two directions, with a deadline on every reply.
struct SMTPWire {
    let channel: any Channel
    var inbound: NIOAsyncChannelInboundStream<String>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let replyTimeout: Duration
    /// Set when a reply's deadline passed (and the connection was closed because of it).
    let timedOut: NIOLockedValueBox<Bool>
    let secrets: [String]
    private var parser = SMTPReplyParser()

    init(
        channel: any Channel, inbound: NIOAsyncChannelInboundStream<String>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, replyTimeout: Duration, timedOut: NIOLockedValueBox<Bool>, secrets: [String]
    ) {
        self.channel = channel
        self.inbound = inbound
        self.outbound = outbound
        self.replyTimeout = replyTimeout
        self.timedOut = timedOut
        self.secrets = secrets
    }

    /// Sends `line` and expects one of `codes`.
    @discardableResult
    mutating func command(_ line: String, at stage: SMTPError.Stage, expecting codes: Set<Int>) async throws(SMTPError) -> SMTPReply {
        try await send(line, at: stage)
        let reply = try await reply(at: stage)
        guard codes.contains(reply.code) else { throw .rejected(reply, at: stage) }
        return reply
    }

    func send(_ line: String, at stage: SMTPError.Stage) async throws(SMTPError) {
        try await write(ByteBuffer(string: line + "\r\n"), at: stage)
    }

    func write(_ buffer: ByteBuffer, at stage: SMTPError.Stage) async throws(SMTPError) {
        do {
            try await outbound.write(buffer)
        } catch {
            throw failure(error, at: stage)
        }
    }

    /// The next reply, within the reply timeout.
    mutating func reply(at stage: SMTPError.Stage) async throws(SMTPError) -> SMTPReply {
        let timer = channel.eventLoop.scheduleTask(in: TimeAmount(replyTimeout)) { [timedOut, channel] in
            timedOut.withLockedValue { $0 = true }
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        while true {
            let line: String?
            do {
                line = try await inbound.next()
            } catch {
                throw failure(error, at: stage)
            }
            guard let line else { throw failure(nil, at: stage) }
            do {
                if var reply = try parser.add(line) {
                    reply.lines = reply.lines.map(redacted)
                    return reply
                }
            } catch {
                channel.close(promise: nil)
                throw SMTPError(stage: stage, kind: .permanent, message: "protocol error: \(redacted(error.description))")
            }
        }
    }

    /// Puts TLS under the line decoder, after the server's `220` to `STARTTLS`, and waits for
    /// the handshake (the certificate checked) within the reply timeout.
    func startTLS(context: NIOSSLContext, serverHostname: String?) async throws(SMTPError) {
        let handshake: EventLoopFuture<Void>
        do {
            handshake = try await channel.eventLoop.submit { [channel] in
                try Self.addTLS(to: channel, context: context, serverHostname: serverHostname)
            }.get()
        } catch {
            throw SMTPError(stage: .tlsHandshake, kind: .permanent, message: "cannot start TLS: \(SMTPClient.describe(error))")
        }
        try await awaitHandshake(handshake)
    }

    /// Adds the TLS handler first in the pipeline (on the event loop); the future completes
    /// with the handshake.
    static func addTLS(to channel: any Channel, context: NIOSSLContext, serverHostname: String?) throws -> EventLoopFuture<Void> {
        let tls = try NIOSSLClientHandler(context: context, serverHostname: serverHostname)
        let waiter = TLSHandshakeWaiter(promise: channel.eventLoop.makePromise())
        try channel.pipeline.syncOperations.addHandler(tls, position: .first)
        try channel.pipeline.syncOperations.addHandler(waiter, position: .after(tls))
        return waiter.promise.futureResult
    }

    func awaitHandshake(_ handshake: EventLoopFuture<Void>) async throws(SMTPError) {
        let timer = channel.eventLoop.scheduleTask(in: TimeAmount(replyTimeout)) { [timedOut, channel] in
            timedOut.withLockedValue { $0 = true }
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        do {
            try await handshake.get()
        } catch {
            var failure = failure(error, at: .tlsHandshake)
            if !(error is NIOSSLError || error is BoringSSLError), !timedOut.withLockedValue({ $0 }) {
                failure.message = "the connection closed during the TLS handshake: \(failure.message)"
            }
            throw failure
        }
    }

    private func failure(_ error: (any Error)?, at stage: SMTPError.Stage) -> SMTPError {
        if timedOut.withLockedValue({ $0 }) {
            return SMTPError(stage: stage, kind: .transient, message: "no reply within \(replyTimeout)")
        }
        switch error {
        case nil:
            return SMTPError(stage: stage, kind: .transient, message: "the server closed the connection")
        case let tls as NIOSSLError:
            if case .uncleanShutdown = tls {
                return SMTPError(stage: stage, kind: .transient, message: "the server closed the TLS connection uncleanly")
            }
            return SMTPError(stage: .tlsHandshake, kind: .permanent, message: redacted(SMTPClient.describe(tls)))
        case let tls as BoringSSLError:
            return SMTPError(stage: .tlsHandshake, kind: .permanent, message: redacted("TLS: \(tls)"))
        case is SMTPLineDecoder.LineTooLong:
            return SMTPError(stage: stage, kind: .permanent, message: "protocol error: reply line longer than \(SMTPLineDecoder.maximumLength) bytes")
        case let error?:
            return SMTPError(stage: stage, kind: .transient, message: "connection lost: \(redacted(SMTPClient.describe(error)))")
        }
    }

    private func redacted(_ text: String) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: "<redacted>") }
    }
}

/// Completes its promise when the TLS handshake completes, fails it with the first error (a
/// certificate refused) or when the connection closes first.
final class TLSHandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event as? TLSUserEvent ?? .shutdownCompleted {
            promise.succeed()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.eof)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(ChannelError.eof)
    }
}

extension SMTPReplyParser.Failure: CustomStringConvertible {
    var description: String {
        switch self {
        case .malformed(let text): text
        }
    }
}

/// The DATA section's transparency (RFC 5321 §4.5.2): CRLF line endings, a `.` doubled at the
/// start of a line, and the `CRLF.CRLF` terminator.
enum SMTPDataEncoding {
    static func stuffed(_ text: String) -> ByteBuffer {
        var output = ByteBuffer()
        output.reserveCapacity(text.utf8.count + text.utf8.count / 40 + 8)
        var atLineStart = true
        var previousCR = false
        for byte in text.utf8 {
            if previousCR, byte != UInt8(ascii: "\n") {
                // A bare CR: end the line.
                output.writeInteger(UInt8(ascii: "\n"))
                atLineStart = true
            }
            previousCR = false
            switch byte {
            case UInt8(ascii: "\r"):
                output.writeInteger(byte)
                previousCR = true
            case UInt8(ascii: "\n"):
                if output.writerIndex == 0 || output.getInteger(at: output.writerIndex - 1, as: UInt8.self) != UInt8(ascii: "\r") {
                    output.writeInteger(UInt8(ascii: "\r"))
                }
                output.writeInteger(byte)
                atLineStart = true
            default:
                if atLineStart, byte == UInt8(ascii: ".") { output.writeInteger(UInt8(ascii: ".")) }
                output.writeInteger(byte)
                atLineStart = false
            }
        }
        if previousCR {
            output.writeInteger(UInt8(ascii: "\n"))
            atLineStart = true
        }
        if !atLineStart { output.writeString("\r\n") }
        output.writeString(".\r\n")
        return output
    }
}
