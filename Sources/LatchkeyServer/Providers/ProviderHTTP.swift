import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One request the server sends to an identity provider.
struct ProviderRequest: Sendable {
    var url: URL
    var method: String = "GET"
    var headers: [(String, String)] = [("Accept", "application/json")]
    var body: Data?

    init(url: URL, method: String = "GET", headers: [(String, String)] = [("Accept", "application/json")], body: Data? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }

    /// A form post (`application/x-www-form-urlencoded`), as OAuth token endpoints take it.
    static func form(_ url: URL, _ fields: [(String, String)], headers: [(String, String)] = []) -> ProviderRequest {
        let encoded = fields.map { name, value in "\(formEncoded(name))=\(formEncoded(value))" }
        return ProviderRequest(
            url: url, method: "POST",
            headers: [("Accept", "application/json"), ("Content-Type", "application/x-www-form-urlencoded")] + headers,
            body: Data(encoded.joined(separator: "&").utf8))
    }

    /// A form post authenticated as the OAuth client `clientID` with HTTP Basic (RFC 6749
    /// §2.3.1: both parts form-encoded before they are joined).
    static func form(_ url: URL, _ fields: [(String, String)], basicAuthentication clientID: String, secret: String) -> ProviderRequest {
        let pair = "\(formEncoded(clientID)):\(formEncoded(secret))"
        return form(url, fields, headers: [("Authorization", "Basic " + Data(pair.utf8).base64EncodedString())])
    }

    /// `text` form-encoded: everything but ASCII letters, digits and `-._~` percent-encoded.
    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

/// A provider's answer: its status and body.
struct ProviderResponse: Sendable {
    var status: Int
    var body: Data

    init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// Why a request to a provider failed. The description names the URL's host and the reason,
/// never a body, a code or a secret.
struct ProviderFetchError: Error, Sendable, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// How the server talks to identity providers: injected, so that tests can count or refuse
/// requests; ``GuardedProviderHTTP`` is the real one.
protocol ProviderHTTP: Sendable {
    func send(_ request: ProviderRequest) async throws -> ProviderResponse
}

/// Sends provider requests with AsyncHTTPClient after ``ProviderAddressPolicy`` allowed the
/// URL, to the very address it checked: no redirects followed (a redirect could lead anywhere), 10 seconds at most
/// (GoTrue's `GOTRUE_INTERNAL_HTTP_TIMEOUT` default), at most 1 MB read.
struct GuardedProviderHTTP: ProviderHTTP {
    static let maximumBodySize = 1 << 20
    var policy: ProviderAddressPolicy
    var timeout: TimeAmount

    init(policy: ProviderAddressPolicy, timeout: TimeAmount = .seconds(10)) {
        self.policy = policy
        self.timeout = timeout
    }

    func send(_ request: ProviderRequest) async throws -> ProviderResponse {
        let host = request.url.host ?? "?"
        let address: ProviderAddressPolicy.Address
        switch await policy.check(request.url) {
        case .refused(let refusal): throw ProviderFetchError("refused to fetch from \(host): \(refusal)")
        case .allowed(let checked): address = checked
        }
        var configuration = HTTPClient.Configuration()
        // The connection goes to the address just checked; TLS still verifies the host's name.
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        configuration.dnsOverride = [name: address.text]
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: timeout, read: timeout)
        return try await HTTPClient.withHTTPClient(configuration: configuration) { client in
            var outgoing = HTTPClientRequest(url: request.url.absoluteString)
            outgoing.method = HTTPMethod(rawValue: request.method)
            for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
            outgoing.headers.replaceOrAdd(name: "User-Agent", value: "Latchkey")
            if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
            do {
                let response = try await client.execute(outgoing, timeout: timeout)
                let body = try await response.body.collect(upTo: Self.maximumBodySize)
                return ProviderResponse(status: Int(response.status.code), body: Data(body.readableBytesView))
            } catch {
                throw ProviderFetchError("request to \(host) failed: \(type(of: error))")
            }
        }
    }
}
