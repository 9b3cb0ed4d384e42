import Foundation
import HTTPTypes
import Hummingbird

/// Cross-origin rules as GoTrue applies them by default (`rs/cors` as configured in GoTrue's
/// `NewAPIWithVersion`): methods GET, POST, PUT, PATCH and DELETE; GoTrue's request headers
/// (plus `apikey`, which supabase-js sends) and any configured extra ones; `X-Total-Count`,
/// `Link` and `X-Supabase-Api-Version` exposed; credentials allowed; every origin (`*`) unless
/// ``ServerConfiguration/corsAllowedOrigins`` names some.
///
/// A preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 with no body
/// by the policy alone, for any path. When its origin, method or headers are not allowed, the
/// 204 carries only `Vary`, and the browser blocks the call.
struct CORSPolicy: Sendable {
    static let allowedMethods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    static let exposedHeaders = "X-Total-Count, Link, X-Supabase-Api-Version"
    static let preflightVary = "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"

    private let allOrigins: Bool
    private let origins: Set<String>
    private let wildcardOrigins: [(prefix: String, suffix: String)]
    private let allHeaders: Bool
    private let headers: Set<String>

    init(allowedOrigins: [String], extraAllowedHeaders: [String]) {
        let normalized = allowedOrigins.map { $0.lowercased() }
        allOrigins = normalized.isEmpty || normalized.contains("*")
        origins = Set(normalized.filter { !$0.contains("*") })
        wildcardOrigins = normalized.filter { $0.contains("*") && $0 != "*" }.map { origin in
            let star = origin.firstIndex(of: "*")!
            return (String(origin[..<star]), String(origin[origin.index(after: star)...]))
        }
        let allowed = ServerConfiguration.defaultCORSAllowedHeaders + extraAllowedHeaders
        allHeaders = allowed.contains("*")
        headers = Set(allowed.map { $0.lowercased() })
    }

    func allows(origin: String) -> Bool {
        if allOrigins { return true }
        let origin = origin.lowercased()
        return origins.contains(origin)
            || wildcardOrigins.contains {
                origin.count >= $0.prefix.count + $0.suffix.count && origin.hasPrefix($0.prefix) && origin.hasSuffix($0.suffix)
            }
    }

    func allows(method: String) -> Bool { method == "OPTIONS" || Self.allowedMethods.contains(method) }

    /// Whether every name of an `Access-Control-Request-Headers` list is allowed.
    func allows(requestedHeaders list: String) -> Bool {
        allHeaders
            || list.split(separator: ",").allSatisfy { name in
                let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
                return trimmed.isEmpty || headers.contains(trimmed)
            }
    }

    /// The answer to a preflight request.
    func preflightHeaders(for request: HTTPFields) -> HTTPFields {
        var fields: HTTPFields = [.vary: Self.preflightVary]
        guard let origin = request[.origin], !origin.isEmpty, allows(origin: origin),
            let method = request[.accessControlRequestMethod], allows(method: method)
        else { return fields }
        let requestedHeaders = request[.accessControlRequestHeaders]
        if let requestedHeaders, !allows(requestedHeaders: requestedHeaders) { return fields }
        fields[.accessControlAllowOrigin] = allOrigins ? "*" : origin
        fields[.accessControlAllowMethods] = method
        if let requestedHeaders, !requestedHeaders.isEmpty { fields[.accessControlAllowHeaders] = requestedHeaders }
        fields[.accessControlAllowCredentials] = "true"
        return fields
    }

    /// Adds the headers of an actual (non-preflight) cross-origin response.
    func addHeaders(to response: inout HTTPFields, for request: HTTPRequest) {
        response.append(HTTPField(name: .vary, value: "Origin"))
        guard let origin = request.headerFields[.origin], !origin.isEmpty, allows(origin: origin), allows(method: request.method.rawValue)
        else { return }
        response[.accessControlAllowOrigin] = allOrigins ? "*" : origin
        response[.accessControlExposeHeaders] = Self.exposedHeaders
        response[.accessControlAllowCredentials] = "true"
    }
}

/// Applies ``CORSPolicy`` around every route, the `/auth/v1` ones included: preflights are
/// answered here, before routing, so no path answers them 404.
struct CORSResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == AuthRequestContext {
    let inner: Inner
    let policy: CORSPolicy

    func respond(to request: Request, context: AuthRequestContext) async throws -> Response {
        if request.method == .options, let method = request.headers[.accessControlRequestMethod], !method.isEmpty {
            return Response(status: .noContent, headers: policy.preflightHeaders(for: request.headers))
        }
        var response = try await inner.respond(to: request, context: context)
        policy.addHeaders(to: &response.headers, for: request.head)
        return response
    }
}
