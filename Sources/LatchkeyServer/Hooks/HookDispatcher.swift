import Foundation

/// Where a hook's JSON payload goes and its answer comes from: an HTTPS endpoint
/// (``HTTPHookDispatcher``) or a PostgreSQL function (``PostgresFunctionDispatcher``), as the
/// hook's URI says.
protocol HookDispatcher: Sendable {
    /// The clock a hook's `metadata.time` is read from.
    var clock: any ServerClock { get }
    /// The hook's answer to `payload` (`nil`: it had nothing to say), or GoTrue's hook error;
    /// the hook's own `{"error": …}` answer is thrown as the client's error.
    func dispatch(_ payload: Data) async throws(AuthError) -> Data?
}

extension HTTPHookDispatcher: HookDispatcher {}
