import Crypto
import Foundation

/// Where a hook is called and the keys its requests are signed with, checked as GoTrue checks
/// `GOTRUE_HOOK_*_URI` and `_SECRETS`: `https://`, or `http://` to a loopback host; secrets of
/// the form `v1,whsec_<base64>`, separated by `|`.
///
/// PostgreSQL function hooks (`pg-functions://…`) are not endpoints: see ``PostgresFunctionName``.
struct HookEndpoint: Sendable, Equatable {
    /// A URI Latchkey cannot call.
    struct URIError: Error, CustomStringConvertible {
        var description: String
    }

    /// A secret that is not `v1,whsec_<base64>`. Its reason never contains the secret.
    struct SecretError: Error {
        var reason: String
    }

    let url: URL
    let keys: [SymmetricKey]

    static func == (lhs: HookEndpoint, rhs: HookEndpoint) -> Bool {
        lhs.url == rhs.url && lhs.keys.count == rhs.keys.count
            && zip(lhs.keys, rhs.keys).allSatisfy { a, b in a.withUnsafeBytes { Data($0) } == b.withUnsafeBytes { Data($0) } }
    }

    init(uri: String, secrets: String) throws {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(), let url = components.url else {
            throw URIError(description: "is not a URI")
        }
        switch scheme {
        case "https":
            guard components.host?.isEmpty == false else { throw URIError(description: "needs a host") }
        case "http":
            let host = components.host?.lowercased() ?? ""
            // As GoTrue: plain HTTP only to this machine, or to the host of a Docker container
            // (`host.docker.internal`, as the Supabase CLI's local setup names it).
            guard ["localhost", "127.0.0.1", "::1", "[::1]", "host.docker.internal"].contains(host) else {
                throw URIError(description: "must be https (http only for localhost, 127.0.0.1, ::1 and host.docker.internal)")
            }
        case "pg-functions":
            throw URIError(description: "names a PostgreSQL function, not an HTTP endpoint")
        default:
            throw URIError(description: "must be an https URL")
        }
        let parts = secrets.split(separator: "|").map(String.init).filter { !$0.isEmpty }
        guard !parts.isEmpty else { throw SecretError(reason: "is required for an HTTP hook (v1,whsec_<base64>)") }
        self.url = url
        self.keys = try parts.map { part throws(SecretError) in
            guard part.hasPrefix("v1,whsec_"), let key = Data(base64Encoded: String(part.dropFirst("v1,whsec_".count))), !key.isEmpty else {
                throw SecretError(reason: "must be v1,whsec_ and a base64 key, separated by |")
            }
            return SymmetricKey(data: key)
        }
    }
}
