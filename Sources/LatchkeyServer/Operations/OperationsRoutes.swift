import Crypto
import Foundation
import Hummingbird

/// `GET /ready` (the database answers) and `GET /metrics` (Prometheus text, behind its own
/// bearer token). `GET /health` stays a liveness check that touches no database.
struct OperationsRoutes: Sendable {
    /// `nil` only when routes are listed without a server (``LatchkeyApplication/routeDescriptions(service:)``).
    let store: (any AuthStore)?
    let metrics: ServerMetrics?
    let metricsToken: String?

    func register(on router: Router<AuthRequestContext>) {
        router.get("/ready") { _, _ in
            let ready = await isDatabaseReady()
            metrics?.recordDatabaseReady(ready)
            guard ready else { throw AuthError.serviceUnavailable }
            return try JSONBody.response(Readiness(status: "ready", database: "ok"))
        }
        router.get("/metrics") { request, _ in
            // Off unless a token is configured: metrics name routes and volumes an outsider
            // has no business seeing.
            guard let metricsToken, let render = metrics?.render else { throw AuthError.notFound }
            guard let presented = try? request.bearerToken(), Self.equal(presented, metricsToken) else { throw AuthError.noAuthorization }
            if let usage = store?.poolUsage { metrics?.recordPoolUsage(usage.snapshot) }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: .init(string: render())))
        }
    }

    /// Whether the store answers a one-row indexed read within ``ServerConfiguration/readinessTimeout``.
    private func isDatabaseReady() async -> Bool {
        guard let store else { return false }
        return await withTaskGroup(of: Bool.self) { group in
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
    static func equal(_ a: String, _ b: String) -> Bool {
        Data(SHA256.hash(data: Data(a.utf8))) == Data(SHA256.hash(data: Data(b.utf8)))
    }

    struct Readiness: Encodable {
        var status: String
        var database: String
    }
}
