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
/// private, link-local, shared (CGNAT), multicast or unspecified address. With
/// ``allowsLoopback`` (the development switch `--allow-loopback-providers`), a host on
/// 127.0.0.0/8 or ::1 may be used, over `http` too; private networks stay refused.
///
/// The check resolves the host before the request; the HTTP client resolves it again when it
/// connects, so a DNS answer that changes between the two (rebinding) is not caught here.
package struct ProviderAddressPolicy: Sendable {
    package var allowsLoopback: Bool

    package init(allowsLoopback: Bool) {
        self.allowsLoopback = allowsLoopback
    }

    /// Why `url` may not be fetched, or `nil` when it may.
    package func refusal(for url: URL) async -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else { return "not an absolute URL" }
        guard url.user == nil, url.password == nil else { return "a URL with credentials" }
        let addresses = await Self.resolve(host)
        guard !addresses.isEmpty else { return "its host does not resolve" }
        let loopback = addresses.allSatisfy(\.isLoopback)
        if loopback && allowsLoopback { return scheme == "http" || scheme == "https" ? nil : "not http or https" }
        guard scheme == "https" else { return "not https" }
        if addresses.contains(where: { !$0.isPublic }) { return "its host resolves to a loopback or private address" }
        return nil
    }

    /// An address a host resolved to.
    package enum Address: Sendable, Equatable {
        case v4(UInt32)
        case v6([UInt8])

        var isLoopback: Bool {
            switch self {
            case .v4(let value): value >> 24 == 127
            case .v6(let bytes): bytes == [UInt8](repeating: 0, count: 15) + [1] || mappedV4.map { $0 >> 24 == 127 } == true
            }
        }

        /// Whether the address is on the public internet (none of the special-purpose ranges).
        var isPublic: Bool {
            switch self {
            case .v4(let value):
                return Self.isPublicV4(value)
            case .v6(let bytes):
                if let v4 = mappedV4 { return Self.isPublicV4(v4) }
                if bytes.allSatisfy({ $0 == 0 }) || isLoopback { return false }
                if bytes[0] & 0xFE == 0xFC { return false }  // fc00::/7 unique local
                if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return false }  // fe80::/10 link-local
                if bytes[0] == 0xFF { return false }  // multicast
                return true
            }
        }

        private var mappedV4: UInt32? {
            guard case .v6(let bytes) = self, bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF
            else { return nil }
            return bytes[12...].reduce(0) { $0 << 8 | UInt32($1) }
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
    package static func resolve(_ host: String) async -> [Address] {
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
