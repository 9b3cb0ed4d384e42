import NIOConcurrencyHelpers

/// The URL clients reach the server at: its external URL, or `http://HOST:PORT`.
///
/// Links in emails, the default site URL and the token issuer all name it. Asked to listen on
/// port 0 without an external URL, the server learns its port only when it binds; it then
/// records the port here, before anyone can know where to connect, so nothing ever names port 0.
final class ServerOrigin: Sendable {
    private let value: NIOLockedValueBox<String>

    init(_ url: String) {
        value = NIOLockedValueBox(url)
    }

    /// The URL, without a trailing slash.
    var url: String { value.withLockedValue { $0 } }

    /// Records the URL of a server that bound `port` on `host`.
    func bound(host: String, port: Int) {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        value.withLockedValue { $0 = "http://\(hostPart):\(port)" }
    }
}
