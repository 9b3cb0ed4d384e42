import Foundation
import Logging

extension SessionManager {
    /// A session whose access token stays valid for at least `minTTL` seconds, refreshing it if
    /// needed.
    ///
    /// `minTTL` is capped at half the token's lifetime, so a server issuing very short-lived
    /// tokens never causes a refresh storm. However many callers ask at once (in this process,
    /// or in others sharing the store and ``SessionManagerConfiguration/crossProcessLockURL``),
    /// one refresh reaches the server. If the refresh fails for a transient reason while the
    /// current token is still valid, the current session is returned.
    ///
    /// When the newest session could not be stored (a locked device: see
    /// ``hasUnsavedSession``), it is stored again first. If it still cannot be, the session in
    /// memory is returned as long as its access token has not expired, even with less than
    /// `minTTL` left: refreshing again would leave the store two rotations behind, and the next
    /// launch signed out. Once it has expired, the user is signed in offline
    /// (``AuthState/signedInOffline(_:)``) and this throws
    /// ``AuthFailure/Category/storage(_:)`` (code `session_not_stored`, retryable) until the
    /// store takes the session; the refresh runs then.
    ///
    /// - Throws: ``AuthFailure`` — ``AuthFailure/Category/notSignedIn`` when there is no session,
    ///   ``AuthFailure/Category/sessionRevoked`` when the server ended it,
    ///   ``AuthFailure/Category/network`` when offline with an expired token (the session is kept),
    ///   or ``AuthFailure/Category/storage(_:)`` while an expired session waits to be stored.
    public func session(minTTL: TimeInterval = 60) async throws -> Session {
        if state == .unknown { await restore() }
        guard state.isSignedIn, record != nil else {
            throw AuthFailure(.notSignedIn)
        }
        let heldBack = await sessionHeldBackByUnsavedWrite("session")
        guard state.isSignedIn, let current = record?.session else {
            throw AuthFailure(.notSignedIn)
        }
        let lifetime = current.expiresIn > 0 ? current.expiresIn : 2 * minTTL
        let required = min(minTTL, lifetime / 2)
        if current.remainingLifetime(at: clock.now()) > required {
            return current
        }
        if heldBack != nil, let unsaved {
            if !current.isExpired(at: clock.now()) { return current }
            throw unsaved.failure
        }
        do {
            return try await sharedRefresh()
        } catch let failure as AuthFailure where failure.isRetryable {
            if let latest = record?.session, state.isSignedIn, !latest.isExpired(at: clock.now()) {
                return latest
            }
            throw failure
        }
    }

    /// Refreshes now, whatever the token's remaining lifetime; joins a refresh already running.
    ///
    /// The one exception: while the newest session cannot be stored (``hasUnsavedSession``),
    /// it is not rotated, as in ``session(minTTL:)``: returned unrefreshed while its access
    /// token is valid, ``AuthFailure/Category/storage(_:)`` once it has expired.
    /// - Throws: ``AuthFailure``.
    @discardableResult
    public func refresh() async throws -> Session {
        if state == .unknown { await restore() }
        guard record != nil else { throw AuthFailure(.notSignedIn) }
        if let heldBack = await sessionHeldBackByUnsavedWrite("refresh") {
            if let unsaved, heldBack.isExpired(at: clock.now()) { throw unsaved.failure }
            return heldBack
        }
        return try await sharedRefresh()
    }

    /// The single-flight refresh: every caller awaits the same task. A second-factor
    /// verification in flight is waited for first (it rotates the tokens too); when it succeeds,
    /// its new session is the answer.
    @discardableResult
    func sharedRefresh() async throws -> Session {
        switch rotationInFlight {
        case .refreshing(let task):
            return try await task.value
        case .verifying(let task):
            if let verified = try? await task.value { return verified }
            return try await sharedRefresh()
        case .idle:
            break
        }
        guard let record else { throw AuthFailure(.notSignedIn) }
        let generation = self.generation
        let task = Task { try await self.runRotation(.refresh, from: record, generation: generation) }
        rotationInFlight = .refreshing(task)
        return try await task.value
    }

    /// The single-flight rotation for a verification: waits for any refresh or verification in
    /// flight, then runs this one while refreshes wait for it.
    func sharedVerify(_ rotation: Rotation) async throws -> Session {
        while let running = rotationInFlight.task {
            _ = try? await running.value
        }
        guard let record, state.isSignedIn else { throw AuthFailure(.notSignedIn) }
        let generation = self.generation
        let task = Task { try await self.runRotation(rotation, from: record, generation: generation) }
        rotationInFlight = .verifying(task)
        return try await task.value
    }

    /// The rotation in flight. Refreshes and verifications both spend the refresh-token family's
    /// newest tokens, so one runs at a time: a refresh joins a refresh, and either waits for the
    /// other. The rotation's task sets it back to ``idle`` when it ends.
    enum RotationInFlight {
        case idle
        case refreshing(Task<Session, any Error>)
        /// A second-factor verification: it answers with new tokens, so refreshes wait for it.
        case verifying(Task<Session, any Error>)

        var task: Task<Session, any Error>? {
            switch self {
            case .idle: nil
            case .refreshing(let task), .verifying(let task): task
            }
        }
    }

    /// What proves a second factor: a code (TOTP) or an authenticator's response (WebAuthn).
    enum FactorProof: Sendable {
        case code(String)
        case webAuthn(WebAuthnFactorResponse)
    }

    /// What renews the tokens: a refresh, or a verified second factor (the server answers a
    /// verified code with new tokens at `aal2`, spending the refresh token like a refresh).
    enum Rotation: Sendable {
        case refresh
        case verifyFactor(factorID: String, challengeID: String, proof: FactorProof)

        var operation: String {
            switch self {
            case .refresh: "refresh"
            case .verifyFactor: "verify_factor"
            }
        }
    }

    /// Runs one rotation under the cross-process lock, as a refresh: re-reads the store first
    /// (another process may have refreshed or signed out), stores an unsaved session first (and
    /// when that still fails while the store holds its parent, sends nothing: a rotation from it
    /// would leave the store two rotations behind), sends, and stores the new session before
    /// anyone sees it. A new session that cannot be stored is kept in memory as unsaved
    /// (``UnsavedSession``).
    func runRotation(_ rotation: Rotation, from start: StoredSession, generation: UInt64) async throws -> Session {
        defer { rotationInFlight = .idle }
        let operation = rotation.operation
        let lock: StoreLease?
        do {
            lock = try await lockStore(operation)
        } catch {
            throw await rotationFailure(rotation, BackendError(error), generation: generation)
        }
        defer { lock?.release() }

        var base = start
        // The refresh token the store holds, as far as this process knows.
        var storeHolds: String? = unsaved.map(\.storeHolds) ?? start.session.refreshToken
        // Another process may have refreshed (or signed out) while we waited for the lock. A
        // store still holding what an unsaved session's write missed is not "another process".
        if lock != nil, let stored = try await storedElsewhere(since: start, generation: generation, operation) {
            if case .refresh = rotation, let adopted = await adoptIfFresh(stored, generation: generation) { return adopted }
            base = stored
            storeHolds = stored.session.refreshToken
        } else if unsaved != nil {
            // The newest session is in memory only: store it before spending its token.
            await commitLock.lock()
            if generation == self.generation, unsaved != nil, let record,
                record.session.refreshToken == base.session.refreshToken,
                await persist(record, under: lock, retrying: true) == nil
            {
                unsaved = nil
                storeHolds = record.session.refreshToken
                logger.info("stored the session that could not be stored earlier", metadata: metadata(operation))
            }
            commitLock.unlock()
            if generation == self.generation, let unsaved, unsaved.forbidsRotation {
                logger.notice("rotation held back: the newest session is not stored yet", metadata: metadata(operation))
                if let session = record?.session, session.isExpired(at: clock.now()) {
                    holdExpiredUnsaved(session, operation)
                }
                throw unsaved.failure
            }
        }

        let fresh: Session
        do {
            switch rotation {
            case .refresh:
                logger.debug("refreshing session", metadata: metadata(operation))
                fresh = try await backend.refresh(refreshToken: base.session.refreshToken)
            case .verifyFactor(let factorID, let challengeID, let proof):
                logger.info(
                    "verifying a second factor",
                    metadata: metadata(operation).merging(
                        ["factor_id": "\(factorID)"], uniquingKeysWith: { $1 }))
                switch proof {
                case .code(let code):
                    fresh = try await backend.verifyFactor(
                        accessToken: base.session.accessToken, factorID: factorID, challengeID: challengeID, code: code)
                case .webAuthn(let response):
                    fresh = try await backend.verifyWebAuthnFactor(
                        accessToken: base.session.accessToken, factorID: factorID, challengeID: challengeID, response: response)
                }
            }
        } catch {
            let backendError = BackendError(error)
            if let reason = backendError.definitiveSignOutReason {
                logger.notice(
                    "server refused the \(operation == "refresh" ? "refresh" : "verification") and ended the session",
                    metadata: metadata(operation).merging(
                        ["reason": "\(reason)"], uniquingKeysWith: { $1 }))
                await endSession(reason, ifGeneration: generation, holding: lock)
                throw AuthFailure(backend: backendError)
            }
            throw await rotationFailure(rotation, backendError, generation: generation)
        }

        let now = clock.now()
        let updated = StoredSession(session: fresh.anchored(receivedAt: now), signedInAt: base.signedInAt, lastServerContact: now)
        // The lock was given up while the server answered (the system was about to suspend the
        // process, or it was held too long): take it again, and look at the store first.
        var commitLease = lock
        var relocked: StoreLease?
        defer { relocked?.release() }
        if let lock, !lock.isHeld {
            relocked = await lockStoreIfPossible(operation)
            commitLease = relocked
            if relocked == nil {
                logger.warning("cannot take the cross-process lock again; storing the new session anyway", metadata: metadata(operation))
            } else if let stored = try await storedElsewhere(since: base, generation: generation, operation) {
                // Another process stored newer tokens meanwhile: every process uses those. A
                // verified second factor is stored anyway: its tokens are the newest of the
                // family, and the only ones at aal2.
                if case .refresh = rotation {
                    await commitLock.lock()
                    defer { commitLock.unlock() }
                    guard generation == self.generation else { throw AuthFailure(.notSignedIn) }
                    unsaved = nil
                    publishRenewed(stored, "adopted a session stored by another process while the lock was given up")
                    return stored.session
                }
                storeHolds = stored.session.refreshToken
            }
        }
        await commitLock.lock()
        defer { commitLock.unlock() }
        guard generation == self.generation else {
            logger.debug("discarding a new session that arrived after sign-out", metadata: metadata(operation))
            throw AuthFailure(.notSignedIn)
        }
        // The rotated session is durable before anyone sees it. If the write fails the session
        // is still used from memory, marked unsaved and stored again at the next opportunity;
        // the server's parent-reuse rule covers a crash before then, as long as no second
        // rotation happens meanwhile (``sessionHeldBackByUnsavedWrite(_:)``). It is written even
        // when the lock cannot be taken again: it is the newest session of this family, and
        // losing it would leave only a spent token.
        if let error = await persist(updated, under: commitLease) {
            markUnsaved(
                storeHolds: storeHolds, parent: storeHolds == base.session.refreshToken, error: error, operation)
        } else {
            unsaved = nil
        }
        switch rotation {
        case .refresh:
            publishRenewed(updated, "session refreshed")
        case .verifyFactor:
            publishRenewed(updated, "second factor verified", event: .secondFactorVerified(updated.session))
        }
        return updated.session
    }

    /// What another process stored since `known`, re-read under the cross-process lock: `nil`
    /// when the store holds the same tokens (or cannot be read), the newer session when it holds
    /// other ones. When another process signed out, this session ends here too (the store is
    /// already empty) and the rotation stops with ``AuthFailure/Category/sessionRevoked``.
    private func storedElsewhere(since known: StoredSession, generation: UInt64, _ operation: String) async throws -> StoredSession? {
        switch await rereadStore(comparedTo: known, operation) {
        case .unchanged:
            return nil
        case .changed(let stored):
            return stored
        case .signedOut:
            await endSession(.signedOutElsewhere, ifGeneration: generation, wipeStore: false)
            throw AuthFailure(.sessionRevoked, code: "signed_out_elsewhere")
        }
    }

    /// Adopts a session another process stored, when its access token does not need a refresh
    /// yet; `nil` when it does (refresh from it instead).
    private func adoptIfFresh(_ stored: StoredSession, generation: UInt64) async -> Session? {
        let lifetime = stored.session.expiresIn > 0 ? stored.session.expiresIn : 0
        let margin = min(configuration.refreshMargin, lifetime / 2)
        guard stored.session.remainingLifetime(at: clock.now()) > margin else { return nil }
        await commitLock.lock()
        defer { commitLock.unlock() }
        guard generation == self.generation else { return nil }
        unsaved = nil
        publishRenewed(stored, "adopted a session refreshed by another process")
        return stored.session
    }

    /// Publishes renewed tokens (already stored): the state, the event, the next proactive refresh.
    func publishRenewed(_ record: StoredSession, _ message: Logger.Message, event: SessionEvent? = nil) {
        apply(record)
        retryAttempt = 0
        broadcaster.emit(event ?? .tokenRefreshed(record.session))
        logger.info(message, metadata: metadata("refresh"))
        scheduleRefresh()
    }

    /// A failed rotation that leaves the session as it was. A refresh reports it and schedules a
    /// retry with backoff; a refused or lost verification is only returned to its caller.
    private func rotationFailure(_ rotation: Rotation, _ error: BackendError, generation: UInt64) async -> AuthFailure {
        guard case .refresh = rotation else {
            logger.info(
                "second factor not verified",
                metadata: metadata(rotation.operation).merging(
                    ["error": "\(error)"], uniquingKeysWith: { $1 }))
            return AuthFailure(backend: error)
        }
        return await transientFailure(error, generation: generation)
    }

    /// Keeps the session, reports the failure, schedules a retry with backoff.
    private func transientFailure(_ error: BackendError, generation: UInt64) async -> AuthFailure {
        let failure = AuthFailure(backend: error)
        guard generation == self.generation else { return failure }
        retryAttempt += 1
        logger.warning(
            "refresh failed; session kept",
            metadata: metadata("refresh").merging(
                ["error": "\(error)", "attempt": "\(retryAttempt)"], uniquingKeysWith: { $1 }))
        broadcaster.emit(.refreshFailed(failure))
        scheduleRefresh()
        return failure
    }
}
