import Crypto
import Foundation
import Hummingbird

/// `GET /ready` (the database answers) and `GET /metrics` (Prometheus text, behind its own
/// bearer token). `GET /health` stays a liveness check that touches no database.
struct OperationsRoutes: AuthFeature {
    let store: any AuthStore
    let metrics: ServerMetrics?
    let metricsToken: String?

    init(_ dependencies: FeatureDependencies) {
        store = dependencies.store
        metrics = dependencies.metrics
        metricsToken = dependencies.configuration.metricsToken
    }

    func register(on router: Router<AuthRequestContext>) {
        router.get("/ready") { _, _ in
            let ready = await isDatabaseReady()
            metrics?.recordDatabaseReady(ready)
            guard ready else { throw AuthError.serviceUnavailable }
            return try JSONBody.response(Readiness(status: "ready", database: "ok"))
        }
        router.group().add(middleware: MetricsTokenMiddleware(token: metrics?.render == nil ? nil : metricsToken)).get("/metrics") { _, _ in
            if let usage = store.poolUsage { metrics?.recordPoolUsage(usage.snapshot) }
            let text = metrics?.render?() ?? ""
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"], body: .init(byteBuffer: .init(string: text)))
        }
    }

    private func isDatabaseReady() async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    _ = try await store.user(id: UUID())
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                try? await Task.sleep(for: ServerConfiguration.readinessTimeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Compares two secrets in time independent of where they differ.
    struct Readiness: Encodable {
        var status: String
        var database: String
    }
}

/// Lets `GET /metrics` through only with the metrics token as its bearer token, compared in
/// constant time: 404 while no token is configured (metrics name routes and volumes an outsider
/// has no business seeing), 401 `no_authorization` for a missing or wrong token.
struct MetricsTokenMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    /// The token; `nil` when metrics are not served.
    let token: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token else { throw AuthError.notFound }
        guard let presented = try? request.bearerToken(), Self.equal(presented, token) else { throw AuthError.noAuthorization }
        return try await next(request, context)
    }

    /// Whether `a` and `b` are equal, in time that depends on neither their lengths nor where
    /// they differ: their digests are compared in constant time.
    static func equal(_ a: String, _ b: String) -> Bool {
        constantTimeEquals(Array(SHA256.hash(data: Data(a.utf8))), Array(SHA256.hash(data: Data(b.utf8))))
    }
}
