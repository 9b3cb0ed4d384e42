/// A named step run after every sign-out: clear a cache, delete a local database, remove
/// listeners, mark presence offline. Register with ``SessionManager/addCleanupStep(_:_:)``.
public struct CleanupStep: Sendable {
    public let name: String
    let body: @Sendable () async throws -> Void

    public init(name: String, _ body: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.body = body
    }
}

/// What a sign-out did. The local session is always gone; this says what else succeeded.
public struct SignOutReport: Sendable, Hashable {
    /// How the server-side logout went.
    public enum ServerOutcome: Sendable, Hashable {
        /// The server ended the session(s).
        case succeeded
        /// The server said the session was already gone (401/403/404): nothing to do.
        case alreadyEnded
        /// The server could not be told (offline, 5xx); the refresh token is gone locally anyway.
        case failed(AuthFailure)
        /// There was no session to end on the server.
        case skipped
    }

    /// A cleanup step that threw.
    public struct StepFailure: Sendable, Hashable {
        public let name: String
        /// `String(describing:)` of the error, for logs; not for people.
        public let error: String
    }

    public internal(set) var server: ServerOutcome = .skipped
    /// Set when the stored credentials could not be deleted (they are gone from memory).
    public internal(set) var storageError: StorageError?
    /// Names of the cleanup steps that completed, in order.
    public internal(set) var completedSteps: [String] = []
    /// Cleanup steps that threw; every other step still ran.
    public internal(set) var failedSteps: [StepFailure] = []

    /// Whether everything, server logout included, succeeded.
    public var isComplete: Bool {
        storageError == nil && failedSteps.isEmpty && server != .skipped
            && { if case .failed = server { return false } else { return true } }()
    }
}
