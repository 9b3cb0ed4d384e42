import CoreMetrics
import Foundation
import NIOConcurrencyHelpers
import Prometheus

/// What the server counts and times, recorded through an injected swift-metrics
/// `MetricsFactory` (never the process-wide `MetricsSystem`, which can be bootstrapped only once
/// per process), and rendered as Prometheus text by `GET /metrics` when the factory is the
/// server's own Prometheus registry (``prometheus(registry:)``, the default).
///
/// | Metric | Labels | Meaning |
/// |---|---|---|
/// | `latchkey_http_requests_total` | `method`, `route`, `status` | requests, by route template (`/admin/users/{id}`, never the raw path); a method HTTP does not define is `OTHER` |
/// | `latchkey_http_request_duration_seconds` | `method`, `route` | latency histogram |
/// | `latchkey_sign_ins_total` | `grant_type` (`password`, `pkce`), `result` | sign-ins through `/token` |
/// | `latchkey_refreshes_total` | `result` | refresh-token grants |
/// | `latchkey_refresh_token_reuse_detected_total` | | spent refresh tokens replayed (session revoked) |
/// | `latchkey_rate_limited_total` | `route` | requests refused with 429 |
/// | `latchkey_mails_total` | `result` (`sent`, `failed`) | emails handed to the mailer |
/// | `latchkey_database_ready` | | 1 when the last `/ready` check reached the database, else 0 |
/// | `latchkey_database_connections_in_use` | | pooled connections held by a call when `/metrics` is read |
/// | `latchkey_database_connections_max` | | the most connections the pool opens |
/// | `latchkey_database_connection_uses_total` | | calls that held a connection |
/// | `latchkey_database_connection_busy_seconds_total` | | seconds connections were held, summed: `rate()` of it over `_max` is the pool's utilisation |
public final class ServerMetrics: Sendable {
    private let factory: any MetricsFactory
    /// The pool counters as last recorded, so that counters grow by the difference.
    private let recordedPoolUsage = NIOLockedValueBox<DatabasePoolUsage.Snapshot?>(nil)
    private struct RequestKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    private struct RequestHandles {
        var count: CoreMetrics.Counter
        var duration: CoreMetrics.Timer
    }

    /// The request metrics' handles by method, route and status (``requestHandles(method:route:status:)``).
    private let requestHandleTable = NIOLockedValueBox<[RequestKey: RequestHandles]>([:])
    /// Renders the registry in Prometheus' text format; `nil` when the factory is not the
    /// server's own registry (then `GET /metrics` is not served).
    let render: (@Sendable () -> String)?

    /// Metrics recorded through `factory` (a test's recorder, or an app's own backend). The
    /// server then serves no `/metrics`: the backend exports them.
    public init(factory: any MetricsFactory) {
        self.factory = factory
        self.render = nil
    }

    private init(factory: any MetricsFactory, render: @escaping @Sendable () -> String) {
        self.factory = factory
        self.render = render
    }

    /// Metrics kept in `registry` (a new one by default) and served by `GET /metrics`.
    public static func prometheus(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) -> ServerMetrics {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        return ServerMetrics(factory: factory, render: { registry.emitToString() })
    }

    /// Records one answered request and what it tells about sign-ins, refreshes and limits.
    ///
    /// - Parameters:
    ///   - route: the matched route template (`NotFound` for none).
    ///   - grantType: `grant_type` of a `/token` request.
    ///   - errorCode: the response's `x-sb-error-code`, if any.
    func recordRequest(method: String, route: String, status: Int, duration: Duration, grantType: String?, errorCode: String?) {
        let handles = requestHandles(method: method, route: route, status: status)
        handles.count.increment()
        handles.duration.recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        let result = (200..<300).contains(status) ? "success" : "failure"
        if route == "/token", let grantType, let metric = TokenGrants.metrics[grantType] {
            switch metric {
            case .signIn:
                Counter(label: "latchkey_sign_ins_total", dimensions: [("grant_type", grantType), ("result", result)], factory: factory).increment()
            case .refresh:
                Counter(label: "latchkey_refreshes_total", dimensions: [("result", result)], factory: factory).increment()
                if errorCode == AuthError.refreshTokenAlreadyUsed.code {
                    Counter(label: "latchkey_refresh_token_reuse_detected_total", factory: factory).increment()
                }
            }
        }
        if status == 429 {
            Counter(label: "latchkey_rate_limited_total", dimensions: [("route", route)], factory: factory).increment()
        }
    }

    /// The request counter and timer for a method, route and status, made once and then reused:
    /// making them looks the series up by its labels in the registry, which every request paid.
    /// A method HTTP does not define is counted as `OTHER`, so that requests with made-up
    /// methods cannot grow the registry (or this table) without bound; routes are templates and
    /// statuses three digits, both bounded.
    private func requestHandles(method: String, route: String, status: Int) -> RequestHandles {
        let key = RequestKey(method: Self.standardMethods.contains(method) ? method : "OTHER", route: route, status: status)
        if let handles = requestHandleTable.withLockedValue({ $0[key] }) { return handles }
        let handles = RequestHandles(
            count: Counter(
                label: "latchkey_http_requests_total", dimensions: [("method", key.method), ("route", route), ("status", String(status))],
                factory: factory),
            duration: Timer(
                label: "latchkey_http_request_duration_seconds", dimensions: [("method", key.method), ("route", route)], factory: factory))
        requestHandleTable.withLockedValue { $0[key] = handles }
        return handles
    }

    private static let standardMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]

    /// Records an email handed to the mailer.
    func recordMail(sent: Bool) {
        Counter(label: "latchkey_mails_total", dimensions: [("result", sent ? "sent" : "failed")], factory: factory).increment()
    }

    /// Records a reading of the store's pool counters (``DatabasePoolUsage``).
    func recordPoolUsage(_ snapshot: DatabasePoolUsage.Snapshot) {
        let previous = recordedPoolUsage.withLockedValue { recorded in
            defer { recorded = snapshot }
            return recorded
        }
        Gauge(label: "latchkey_database_connections_in_use", factory: factory).record(snapshot.inUse)
        Gauge(label: "latchkey_database_connections_max", factory: factory).record(snapshot.capacity)
        Counter(label: "latchkey_database_connection_uses_total", factory: factory)
            .increment(by: max(0, snapshot.uses - (previous?.uses ?? 0)))
        FloatingPointCounter(label: "latchkey_database_connection_busy_seconds_total", factory: factory)
            .increment(by: max(0, snapshot.busySeconds - (previous?.busySeconds ?? 0)))
    }

    /// Records the outcome of a readiness check.
    func recordDatabaseReady(_ ready: Bool) {
        Gauge(label: "latchkey_database_ready", factory: factory).record(ready ? 1 : 0)
    }
}

/// Counts what a mailer delivers and fails to deliver.
struct MeteredMailer: Mailer {
    let base: any Mailer
    let metrics: ServerMetrics

    func send(_ message: MailMessage) async throws {
        do {
            try await base.send(message)
            metrics.recordMail(sent: true)
        } catch {
            metrics.recordMail(sent: false)
            throw error
        }
    }
}
