import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which URLs the server may fetch from an identity provider (discovery, keys, token and user
/// endpoints): no server-side request forgery through a provider's configuration.
///
/// As in GoTrue, a provider URL must be `https` and its host must not resolve to a loopback,
/// private, link-local, shared (CGNAT), multicast or unspecified address — nor to an IPv6
/// address that embeds one (`::a.b.c.d`, `::ffff:a.b.c.d`, NAT64's `64:ff9b::/96`, 6to4's
/// `2002::/16`), nor to a deprecated site-local (`fec0::/10`), Teredo, documentation, discard
/// or local-use NAT64 address. With ``allowsLoopback`` (the development switch
/// `--allow-loopback-providers`), a host on 127.0.0.0/8 or ::1 may be used, over `http` too;
/// private networks stay refused.
///
/// ``check(_:)`` answers the address it checked, and the HTTP client connects to that address
/// (``GuardedProviderHTTP``) rather than resolving the host again: a DNS answer that changes
/// between the check and the connection (rebinding) cannot lead the request elsewhere.
struct ProviderAddressPolicy: Sendable {
    var allowsLoopback: Bool
    /// Resolves a host name (the system's resolver; replaced in tests).
    var resolver: @Sendable (String) async -> [Address]

    init(allowsLoopback: Bool, resolver: @escaping @Sendable (String) async -> [Address] = ProviderAddressPolicy.resolve) {
        self.allowsLoopback = allowsLoopback
        self.resolver = resolver
    }

    /// What ``check(_:)`` decides about a URL.
    enum Decision: Sendable, Equatable {
        /// The URL may be fetched, by connecting to `address` (one of those checked).
        case allowed(address: Address)
        /// Why the URL may not be fetched.
        case refused(String)
    }

    /// Why `url` may not be fetched, or `nil` when it may.
    func refusal(for url: URL) async -> String? {
        if case .refused(let reason) = await check(url) { return reason }
        return nil
    }

    /// Whether `url` may be fetched, and the address to connect to.
    func check(_ url: URL) async -> Decision {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else { return .refused("not an absolute URL") }
        guard url.user == nil, url.password == nil else { return .refused("a URL with credentials") }
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses = await resolver(name)
        guard let first = addresses.first else { return .refused("its host does not resolve") }
        let loopback = addresses.allSatisfy(\.isLoopback)
        if loopback && allowsLoopback { return scheme == "http" || scheme == "https" ? .allowed(address: first) : .refused("not http or https") }
        guard scheme == "https" else { return .refused("not https") }
        if addresses.contains(where: { !$0.isPublic }) { return .refused("its host resolves to a loopback or private address") }
        return .allowed(address: first)
    }

    /// An address a host resolved to.
    enum Address: Sendable, Equatable {
        case v4(UInt32)
        case v6([UInt8])

        var isLoopback: Bool {
            switch self {
            case .v4(let value): value >> 24 == 127
            case .v6(let bytes): bytes == [UInt8](repeating: 0, count: 15) + [1] || mappedV4.map { $0 >> 24 == 127 } == true
            }
        }

        /// Whether the address is on the public internet (none of the special-purpose ranges,
        /// and no IPv6 address embedding an IPv4 address that is not public).
        var isPublic: Bool {
            switch self {
            case .v4(let value):
                return Self.isPublicV4(value)
            case .v6(let bytes):
                guard bytes.count == 16 else { return false }
                if let v4 = embeddedV4 { return Self.isPublicV4(v4) }
                if bytes.allSatisfy({ $0 == 0 }) || isLoopback { return false }
                if bytes[0..<12].allSatisfy({ $0 == 0 }) { return false }  // ::/96 other than the above
                if bytes[0] & 0xFE == 0xFC { return false }  // fc00::/7 unique local
                if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return false }  // fe80::/10 link-local
                if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0xC0 { return false }  // fec0::/10 site-local (deprecated)
                if bytes[0] == 0xFF { return false }  // multicast
                if bytes[0..<4] == [0x20, 0x01, 0x00, 0x00] { return false }  // 2001::/32 Teredo
                if bytes[0..<4] == [0x20, 0x01, 0x0D, 0xB8] { return false }  // 2001:db8::/32 documentation
                if bytes[0..<8] == [0x01, 0x00, 0, 0, 0, 0, 0, 0] { return false }  // 100::/64 discard
                if bytes[0..<6] == [0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01] { return false }  // 64:ff9b:1::/48 local-use NAT64
                return true
            }
        }

        /// The IPv4 address inside a mapped (`::ffff:a.b.c.d`) address.
        private var mappedV4: UInt32? {
            guard case .v6(let bytes) = self, bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF
            else { return nil }
            return Self.v4(bytes[12..<16])
        }

        /// The IPv4 address a packet to this IPv6 address reaches: mapped (`::ffff:a.b.c.d`),
        /// compatible (`::a.b.c.d`, other than `::` and `::1`), NAT64 (`64:ff9b::a.b.c.d`) or
        /// 6to4 (`2002:aabb:ccdd::/48`).
        var embeddedV4: UInt32? {
            guard case .v6(let bytes) = self, bytes.count == 16 else { return nil }
            if let mapped = mappedV4 { return mapped }
            if bytes[0..<12].allSatisfy({ $0 == 0 }), Self.v4(bytes[12..<16]) > 1 { return Self.v4(bytes[12..<16]) }
            if bytes[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return Self.v4(bytes[12..<16]) }
            if bytes[0] == 0x20, bytes[1] == 0x02 { return Self.v4(bytes[2..<6]) }
            return nil
        }

        private static func v4(_ bytes: ArraySlice<UInt8>) -> UInt32 { bytes.reduce(0) { $0 << 8 | UInt32($1) } }

        /// The address written out, as a connection takes it (`a.b.c.d`, or eight hex groups).
        var text: String {
            switch self {
            case .v4(let value): return (0..<4).map { String((value >> (24 - 8 * $0)) & 0xFF) }.joined(separator: ".")
            case .v6(let bytes):
                return stride(from: 0, to: bytes.count, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                    .joined(separator: ":")
            }
        }

        private static func isPublicV4(_ value: UInt32) -> Bool {
            let blocked: [(UInt32, Int)] = [
                (0x0000_0000, 8), (0x0A00_0000, 8), (0x6440_0000, 10), (0x7F00_0000, 8), (0xA9FE_0000, 16), (0xAC10_0000, 12),
                (0xC000_0000, 24), (0xC0A8_0000, 16), (0xC612_0000, 15), (0xE000_0000, 3),
            ]
            return !blocked.contains { network, length in value >> (32 - length) == network >> (32 - length) }
        }
    }

    /// Every address `host` resolves to (an IP literal resolves to itself).
    static func resolve(_ host: String) async -> [Address] {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return await Task.detached {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            #if canImport(Darwin)
            hints.ai_socktype = SOCK_STREAM
            #else
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            #endif
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
            defer { freeaddrinfo(list) }
            var addresses: [Address] = []
            var entry: UnsafeMutablePointer<addrinfo>? = first
            while let current = entry {
                if let sockaddr = current.pointee.ai_addr {
                    switch current.pointee.ai_family {
                    case AF_INET:
                        sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                            addresses.append(.v4(UInt32(bigEndian: $0.pointee.sin_addr.s_addr)))
                        }
                    case AF_INET6:
                        sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                            addresses.append(.v6(withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) }))
                        }
                    default:
                        break
                    }
                }
                entry = current.pointee.ai_next
            }
            return addresses
        }.value
    }
}
