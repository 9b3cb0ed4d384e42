import Foundation
import Logging

/// Keeps one user signed in: restores the session at launch, hands out fresh access tokens,
/// refreshes them once however many callers ask, survives offline launches and crashes, and
/// signs out only when the server says so or the user asks.
///
/// ```swift
/// let manager = SessionManager(
///     backend: GoTrueBackend(configuration: .init(baseURL: url, apiKey: anonKey)),
///     store: KeychainCredentialStore(service: "com.example.app"),
///     installMarker: FileInstallMarker.standard)
/// switch await manager.restore() {
/// case .signedIn, .signedInOffline: showMain()
/// case .signedOut(let reason): showLogin(reason)
/// case .unknown: break
/// }
/// let token = try await manager.session(minTTL: 60).accessToken
/// ```
///
/// The manager keeps the tokens; what the user does with the account is reached from it:
///
/// - ``account``: sign in with a password, sign up, anonymous users, profile and password
///   changes (``AuthAccount``).
/// - ``email``: sign-in codes and links, confirmation, password recovery (``AuthEmail``).
/// - ``phone``: sign-in codes texted to a number (``AuthPhone``).
/// - ``mfa``: authenticator apps as a second factor (``AuthMFA``).
/// - ``passkeys``: adding, listing, renaming and removing passkeys (``AuthPasskeys``); signing
///   in with one is ``AuthAccount/signInWithPasskey(mediation:captchaToken:)``.
///
/// ```swift
/// try await manager.account.signIn(email: email, password: password)
/// try await manager.email.sendSignInEmail(email: email, redirectTo: callbackURL)
/// try await manager.mfa.challengeAndVerify(factorID: factor.id, code: code)
/// ```
///
/// Every session any of them obtains is stored and published here (``state``, ``events()``).
/// Everything the manager depends on is injected: the backend, the credential store, the
/// install marker, the clock and the logger.
public actor SessionManager {
    let backend: any AuthBackend
    let store: any CredentialStore
    let installMarker: (any InstallMarker)?
    let clock: any SessionClock
    let logger: Logger
    /// The configuration this manager was created with.
    public nonisolated let configuration: SessionManagerConfiguration

    let broadcaster = EventBroadcaster()
    let commitLock = AsyncMutex()

    /// Where the user stands now.
    public internal(set) var state: AuthState = .unknown
    /// The session and its dates, while signed in (also kept while offline beyond grace).
    var record: StoredSession?
    /// Bumped whenever the session's identity changes (sign-in, sign-out) so that late results
    /// of work started for an earlier session are discarded.
    var generation: UInt64 = 0

    var phase: AppPhase
    var backgroundedAt: Date?
    /// The token rotation in flight (a refresh or a second-factor verification), at most one.
    var rotationInFlight: RotationInFlight = .idle
    /// While a restore runs: the callers waiting for its outcome (``restore()``).
    var restoreWaiters: [CheckedContinuation<AuthState, Never>]?
    var signInFlight: (fingerprint: String, task: Task<Session, any Error>)?
    var refreshTimer: Task<Void, Never>?
    var ageTimer: Task<Void, Never>?
    var retryAttempt = 0
    var cleanupSteps: [CleanupStep] = []
    /// The cleanup of the last ended session, while it runs; sign-ins wait for it.
    var pendingCleanup: Task<Void, Never>?
    /// Set while ``record`` is newer than what the store holds: its write failed (a locked
    /// device). The session in memory is the authoritative one until it is stored
    /// (``saveUnsaved(_:)``).
    var unsaved: UnsavedSession?
    /// The write of the unsaved session in progress, at most one.
    var unsavedWrite: Task<Bool, Never>?

    /// Creates a manager.
    /// - Parameters:
    ///   - backend: The auth server.
    ///   - store: Where the session is kept.
    ///   - configuration: Timeouts, margins and policies.
    ///   - installMarker: Detects a reinstall that found stale credentials; `nil` disables it.
    ///   - clock: The time source (in tests, `ManualSessionClock` from LatchkeyTesting).
    ///   - logger: Where to log; tokens and passwords are never logged, emails only hashed.
    public init(
        backend: any AuthBackend,
        store: any CredentialStore,
        configuration: SessionManagerConfiguration = .init(),
        installMarker: (any InstallMarker)? = nil,
        clock: any SessionClock = SystemSessionClock(),
        logger: Logger = Logger(label: "dev.latchkey.session")
    ) {
        self.backend = backend
        self.store = store
        self.configuration = configuration
        self.installMarker = installMarker
        self.clock = clock
        self.logger = logger
        self.phase = configuration.initialPhase
    }

    deinit {
        refreshTimer?.cancel()
        ageTimer?.cancel()
        broadcaster.finish()
    }

    /// A stream of everything that happens to the session. Any number of subscribers; one that
    /// subscribes after launch first receives ``SessionEvent/initialSession(_:)``.
    public nonisolated func events() -> AsyncStream<SessionEvent> {
        broadcaster.subscribe()
    }

    /// Account operations: password sign-in, sign-up, anonymous users, profile and password
    /// changes.
    public nonisolated var account: AuthAccount { AuthAccount(manager: self) }

    /// Email flows: sign-in codes and links (PKCE), confirmation, password recovery.
    public nonisolated var email: AuthEmail { AuthEmail(manager: self) }

    /// Phone sign-in: a code texted to a number, then verified.
    public nonisolated var phone: AuthPhone { AuthPhone(manager: self) }

    /// Second factors: enrolling an authenticator app, challenges, verification, removal.
    public nonisolated var mfa: AuthMFA { AuthMFA(manager: self) }

    /// The ways to sign in to the account: listing, linking and unlinking providers.
    public nonisolated var identities: AuthIdentities { AuthIdentities(manager: self) }

    /// The account's passkeys: adding one with the device's authenticator, listing, renaming,
    /// removing.
    public nonisolated var passkeys: AuthPasskeys { AuthPasskeys(manager: self) }

    /// The current session without any check or refresh, or `nil` when signed out.
    public var currentSession: Session? { state.session }

    /// Registers a step to run after every sign-out (user-initiated or not), in registration
    /// order. Each step runs even if an earlier one threw. A step may read the manager's state but
    /// should not sign in or out itself: a sign-in waits for the running cleanup to finish.
    public func addCleanupStep(_ name: String, _ body: @escaping @Sendable () async throws -> Void) {
        cleanupSteps.append(CleanupStep(name: name, body))
    }

    // MARK: - Internal helpers shared by the extensions

    func metadata(_ operation: String) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["operation": "\(operation)"]
        if let id = record?.session.user.id { metadata["user_id"] = "\(id)" }
        return metadata
    }

    func loadRecord() async throws -> StoredSession? {
        guard let data = try await store.load(key: configuration.storageKey) else { return nil }
        return try StoredSession.decode(data)
    }

    /// Writes `record` to the store (under `lease`, the cross-process lock when held); on
    /// failure reports it (``SessionEvent/storageFailed(_:)``, unless `retrying` a write that
    /// already failed) and returns the error (the session stays usable in memory).
    @discardableResult
    func persist(_ record: StoredSession, under lease: StoreLease? = nil, retrying: Bool = false) async -> StorageError? {
        await underLease(lease, "persist") {
            do {
                try await store.save(try record.encoded(), key: configuration.storageKey)
                return nil
            } catch {
                let storageError = error as? StorageError ?? .unavailable(reason: "unexpected store error")
                let metadata = metadata("persist").merging(["error": "\(storageError)"], uniquingKeysWith: { $1 })
                if retrying {
                    logger.notice("still cannot store the session; kept in memory", metadata: metadata)
                } else {
                    logger.error("could not store session", metadata: metadata)
                    broadcaster.emit(.storageFailed(storageError))
                }
                return storageError
            }
        }
    }

    /// Deletes the stored session (under `lease`, the cross-process lock when held).
    func deleteStored(under lease: StoreLease?) async throws {
        let result: Result<Void, any Error> = await underLease(lease, "delete") {
            do {
                try await store.delete(key: configuration.storageKey)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Publishes a new current session (already persisted) as `state`.
    func apply(_ record: StoredSession, offline: Bool = false) {
        self.record = record
        state = offline ? .signedInOffline(record.session) : .signedIn(record.session)
        broadcaster.setCurrent(record.session)
    }
}
