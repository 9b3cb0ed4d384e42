import Foundation
import Logging
import ServiceLifecycle

/// Runs ``StorageCleanup`` every `interval` seconds, in the application's service group, until
/// graceful shutdown. A failed run (the database is down) is logged and tried again at the next
/// interval.
struct StorageCleanupService: Service {
    let cleanup: StorageCleanup
    let interval: TimeInterval
    let logger: Logger

    func run() async throws {
        // The first run soon after start, with some jitter, so that instances started together
        // do not all clean at the same moment (they may: the batches skip each other's rows).
        var delay = min(interval, 5) * Double.random(in: 0.5...1)
        while !Task.isShuttingDownGracefully {
            let wait = delay
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(wait)) }
            } catch {
                return
            }
            delay = interval
            do {
                let started = ContinuousClock.now
                let deleted = try await cleanup.run()
                if deleted.total > 0 {
                    logger.info(
                        "cleanup deleted stale rows",
                        metadata: [
                            "sessions": "\(deleted.sessions)", "refresh_tokens": "\(deleted.refreshTokens)",
                            "one_time_tokens": "\(deleted.oneTimeTokens)", "flow_states": "\(deleted.flowStates)",
                            "audit_entries": "\(deleted.auditEntries)", "mfa_factors": "\(deleted.factors)",
                            "mfa_challenges": "\(deleted.challenges)", "rate_limit_counters": "\(deleted.rateLimitCounters)",
                            "oauth_authorizations": "\(deleted.oauthAuthorizations)",
                            "duration": "\(ContinuousClock.now - started)",
                        ])
                }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("cleanup failed; trying again at the next interval", metadata: ["error": "\(String(describing: error))"])
            }
        }
    }
}
