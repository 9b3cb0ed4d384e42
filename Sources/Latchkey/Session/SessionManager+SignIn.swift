import Crypto
import Foundation
import Logging

extension SessionManager {
    /// Signs in with email and password (``AuthAccount/signIn(email:password:captchaToken:)``). Identical
    /// concurrent attempts (a double tap) share one request; different ones run one after the
    /// other.
    func signInWithPassword(email: String, password: String) async throws -> Session {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        let fingerprint = SHA256.hash(data: Data("\(email.lowercased())\u{0}\(password)".utf8))
            .map { String(format: "%02x", $0) }.joined()
        if let flight = signInFlight {
            if flight.fingerprint == fingerprint { return try await flight.task.value }
            _ = try? await flight.task.value
            return try await signInWithPassword(email: email, password: password)
        }
        let task = Task { () async throws -> Session in
            defer { self.signInFlight = nil }
            self.logger.info("signing in", metadata: ["operation": "sign_in", "email": "\(LogRedaction.email(email))"])
            do {
                let session = try await self.backend.signIn(email: email, password: password)
                return try await self.commitSignIn(session)
            } catch {
                let failure = AuthFailure(error)
                self.logger.info(
                    "sign-in failed",
                    metadata: [
                        "operation": "sign_in", "email": "\(LogRedaction.email(email))", "failure": "\(failure)",
                    ])
                throw failure
            }
        }
        signInFlight = (fingerprint, task)
        return try await task.value
    }

    /// Stores and publishes a session obtained with credentials (a password, an emailed code
    /// or link, an anonymous sign-up), and emits ``SessionEvent/signedIn(_:)``. A session the
    /// store refuses is kept in memory as unsaved and stored again later, like a refresh's.
    /// Switching to another account runs the cleanup steps first, so one account never sees
    /// another's local data.
    func commitSignIn(_ received: Session) async throws -> Session {
        let now = clock.now()
        let record = StoredSession(session: received.anchored(receivedAt: now), signedInAt: now, lastServerContact: now)
        if let previous = self.record, previous.session.user.id != received.user.id {
            _ = await runCleanupTracked()
        }
        await awaitPendingCleanup()
        // Held while storing, so a refresh in another process cannot write its older session
        // over this one; a sign-in is stored even when the lock cannot be taken.
        let lock = await lockStoreIfPossible("sign_in")
        defer { lock?.release() }
        await commitLock.lock()
        defer { commitLock.unlock() }
        // What the store holds: the previous session, unless its own write failed.
        let storeHolds: String? = unsaved.map(\.storeHolds) ?? self.record?.session.refreshToken
        generation += 1
        retryAttempt = 0
        if let error = await persist(record, under: lock) {
            // Kept in memory, and stored again at the next opportunity (``saveUnsaved(_:)``).
            markUnsaved(storeHolds: storeHolds, parent: false, error: error, "sign_in")
        } else {
            unsaved = nil
        }
        await markInstalled()
        apply(record)
        broadcaster.emit(.signedIn(record.session))
        logger.info("signed in", metadata: metadata("sign_in"))
        announceSecondFactorIfRequired(record.session)
        scheduleRefresh()
        scheduleAgeTimer()
        return record.session
    }

    /// A sign-in proves this installation owns the stored session: set the install marker, so
    /// that a marker left unset by a launch that could not read the store (and so wiped
    /// nothing) does not make the next launch wipe this session as a reinstall's leftovers.
    private func markInstalled() async {
        guard let installMarker else { return }
        do {
            if try await installMarker.isSet() { return }
            try await installMarker.set()
        } catch {
            logger.warning("cannot set install marker", metadata: metadata("sign_in"))
        }
    }

    /// Emits ``SessionEvent/secondFactorRequired(_:)`` when `session` still needs a code.
    func announceSecondFactorIfRequired(_ session: Session) {
        guard session.requiresSecondFactor else { return }
        logger.info("a second factor is required", metadata: metadata("second_factor"))
        broadcaster.emit(.secondFactorRequired(session))
    }

    // MARK: - Requests on the user's behalf

    /// A session fresh enough for a request on the user's behalf, and the generation it belongs
    /// to: a result that arrives after a sign-out or another sign-in is not stored.
    func sessionForRequest() async throws -> (session: Session, generation: UInt64) {
        let session = try await self.session(minTTL: 30)
        return (session, generation)
    }

    /// Runs a request with a valid access token; a definitive answer (session revoked, account
    /// deleted or disabled) ends the session, like a refresh's.
    /// - Throws: ``AuthFailure``.
    @discardableResult
    func authorized<T: Sendable>(_ operation: String, _ request: @Sendable (String) async throws -> T) async throws -> T {
        let (session, generation) = try await sessionForRequest()
        do {
            return try await request(session.accessToken)
        } catch {
            let backendError = BackendError(error)
            if let reason = backendError.definitiveSignOutReason {
                logger.notice(
                    "server ended the session",
                    metadata: metadata(operation).merging(
                        ["reason": "\(reason)"], uniquingKeysWith: { $1 }))
                await endSession(reason, ifGeneration: generation)
            }
            throw AuthFailure(backend: backendError)
        }
    }

    /// Logs `message` with the operation and the signed-in user.
    func log(_ message: Logger.Message, _ operation: String, _ extra: Logger.Metadata = [:]) {
        logger.info(message, metadata: metadata(operation).merging(extra, uniquingKeysWith: { $1 }))
    }
}
