import Foundation
import Hummingbird
import LatchkeyWire

/// One way to get a session from `POST /token?grant_type=<name>`.
///
/// A grant decodes its own body and answers with a session or an ``AuthError``; the route
/// finds it by ``grantType`` in ``TokenGrants``. Adding a grant type is one new file with a
/// type conforming to this protocol and one line in ``TokenGrants/all``.
protocol TokenGrant: Sendable {
    /// The JSON body `POST /token` carries for this grant.
    associatedtype Body: Decodable
    /// The `grant_type` query value that selects this grant.
    static var grantType: String { get }
    /// What the server's metrics count this grant's requests as.
    static var metric: GrantMetric { get }
    /// The grant, built once when the server starts.
    init(_ dependencies: FeatureDependencies)
    /// A new or renewed session for `body`, from a client at `ipAddress`.
    func session(for body: Body, ipAddress: String) async throws -> SessionResponse
    /// A session for `body` when the grant needs more of the request than the client's
    /// address (a bearer token); by default ``session(for:ipAddress:)``.
    func session(for body: Body, request: Request, context: AuthRequestContext) async throws -> SessionResponse
}

/// What a grant's requests count as in the server's metrics (`GET /metrics`).
enum GrantMetric: Sendable, Equatable {
    /// `latchkey_sign_ins_total`, by grant type and result.
    case signIn
    /// `latchkey_refreshes_total` by result, and `latchkey_refresh_token_reuse_detected_total`.
    case refresh
}

extension TokenGrant {
    func session(for body: Body, request: Request, context: AuthRequestContext) async throws -> SessionResponse {
        try await session(for: body, ipAddress: context.clientIP)
    }
}

extension TokenGrant {
    /// This grant as a request handler: decodes ``Body`` (GoTrue's `bad_json` and
    /// `validation_failed` for bad input) and asks for a session.
    static func handler(_ dependencies: FeatureDependencies) -> TokenGrants.Handler {
        let grant = Self(dependencies)
        return { request, context in
            let body = try await JSONBody.decode(Body.self, from: request, context: context)
            return try await grant.session(for: body, request: request, context: context)
        }
    }
}
