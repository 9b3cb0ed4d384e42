import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `fd00::/8`; a bare address is a
/// single host). IPv4-mapped IPv6 addresses (`::ffff:10.1.2.3`) count as their IPv4 address.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network address: 4 bytes for IPv4, 16 for IPv6.
    let bytes: [UInt8]
    let prefixLength: Int

    /// Parses `10.0.0.0/8`, `192.168.1.7`, `2001:db8::/32` or `::1`.
    public init(parsing text: String) throws(ConfigurationError) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = parts.first.flatMap({ IPNetwork.addressBytes(String($0)) }) else {
            throw ServerSetting.trustedProxy.error("\(text): not an IP address or CIDR network")
        }
        let maximum = address.count * 8
        var length = maximum
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...maximum).contains(parsed) else {
                throw ServerSetting.trustedProxy.error("\(text): the prefix length must be 0 to \(maximum)")
            }
            length = parsed
        }
        bytes = IPNetwork.masked(address, prefixLength: length)
        prefixLength = length
    }

    public var description: String {
        let text =
            bytes.count == 4
            ? bytes.map(String.init).joined(separator: ".")
            : stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
        return "\(text)/\(prefixLength)"
    }

    /// Whether `address` (text) lies in this network; `false` for text that is no IP address.
    public func contains(_ address: String) -> Bool {
        guard let candidate = IPNetwork.addressBytes(address) else { return false }
        return contains(bytes: candidate)
    }

    func contains(bytes candidate: [UInt8]) -> Bool {
        candidate.count == bytes.count && IPNetwork.masked(candidate, prefixLength: prefixLength) == bytes
    }

    /// The 4 or 16 bytes of an IP address, IPv4-mapped IPv6 folded to IPv4; `nil` when the text
    /// is no IP address. Brackets (`[::1]`) and an IPv6 zone (`fe80::1%eth0`) are accepted.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        var buffer = [UInt8](repeating: 0, count: 16)
        if !text.contains(":") {
            guard inet_pton(AF_INET, text, &buffer) == 1 else { return nil }
            return Array(buffer[0..<4])
        }
        guard inet_pton(AF_INET6, text, &buffer) == 1 else { return nil }
        let bytes = buffer
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    private static func masked(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(max(prefixLength - index * 8, 0), 8)
            return bits == 8 ? byte : byte & ~(UInt8(0xFF) >> bits)
        }
    }
}

/// The proxies whose `X-Forwarded-For` the server believes (`--trusted-proxy`). Empty by default:
/// then the header is ignored and the client is the peer of the TCP connection.
public struct TrustedProxies: Sendable {
    public let networks: [IPNetwork]

    public init(_ networks: [IPNetwork]) { self.networks = networks }

    /// Parses CIDR texts, such as the values of `--trusted-proxy`.
    public init(parsing texts: [String]) throws(ConfigurationError) {
        var networks: [IPNetwork] = []
        for text in texts { networks.append(try IPNetwork(parsing: text)) }
        self.networks = networks
    }

    public var isEmpty: Bool { networks.isEmpty }

    func trusts(_ address: String) -> Bool {
        guard let bytes = IPNetwork.addressBytes(address) else { return false }
        return networks.contains { $0.contains(bytes: bytes) }
    }

    /// The client's address: the TCP peer, unless the peer is a trusted proxy; then the
    /// `X-Forwarded-For` hops are walked from the right, skipping trusted proxies, and the first
    /// untrusted address is the client. A hop that is no IP address stops the walk at the hop
    /// that reported it (anything left of it may be forged); if every hop is trusted, the
    /// left-most one is the client.
    ///
    /// - Parameters:
    ///   - peer: the connection's remote address.
    ///   - forwardedFor: every `X-Forwarded-For` header value, in order.
    public func clientAddress(peer: String, forwardedFor: [String]) -> String {
        guard !networks.isEmpty, trusts(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard IPNetwork.addressBytes(hop) != nil else { return client }
            client = Self.normalized(hop)
            if !trusts(hop) { return client }
        }
        return client
    }

    /// An address as the server names it: brackets and zones dropped, IPv4-mapped IPv6 as IPv4.
    static func normalized(_ address: String) -> String {
        var text = address
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let bytes = IPNetwork.addressBytes(text), bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return text
    }
}
