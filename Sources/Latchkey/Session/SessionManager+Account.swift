import Crypto
import Foundation
import Logging

extension SessionManager {
    /// Signs in with email and password, stores the session, and emits
    /// ``SessionEvent/signedIn(_:)``. Identical concurrent attempts (a double tap) share one
    /// request; different ones run one after the other.
    /// - Throws: ``AuthFailure`` (e.g. ``AuthFailure/Category/invalidCredentials``).
    @discardableResult
    public func signIn(email: String, password: String) async throws -> Session {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        let fingerprint = SHA256.hash(data: Data("\(email.lowercased())\u{0}\(password)".utf8))
            .map { String(format: "%02x", $0) }.joined()
        if let flight = signInFlight {
            if flight.fingerprint == fingerprint { return try await flight.task.value }
            _ = try? await flight.task.value
            return try await signIn(email: email, password: password)
        }
        let task = Task { () async throws -> Session in
            defer { self.signInFlight = nil }
            self.logger.info("signing in", metadata: ["operation": "sign_in", "email": "\(LogRedaction.email(email))"])
            do {
                let session = try await self.backend.signIn(email: email, password: password)
                return try await self.commitSignIn(session)
            } catch {
                let failure = AuthFailure(error)
                self.logger.info("sign-in failed", metadata: [
                    "operation": "sign_in", "email": "\(LogRedaction.email(email))", "failure": "\(failure)",
                ])
                throw failure
            }
        }
        signInFlight = (fingerprint, task)
        return try await task.value
    }

    /// Creates an account. Returns the session when the server confirms at once, or
    /// ``SignUpResult/confirmationRequired(_:)`` when the email must be confirmed first.
    /// - Throws: ``AuthFailure`` (e.g. ``AuthFailure/Category/accountExists``).
    public func signUp(email: String, password: String, data: [String: JSONValue] = [:]) async throws -> SignUpResult {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        logger.info("signing up", metadata: ["operation": "sign_up", "email": "\(LogRedaction.email(email))"])
        let result: SignUpResult
        do {
            result = try await backend.signUp(email: email, password: password, data: data)
        } catch {
            throw AuthFailure(error)
        }
        switch result {
        case .signedIn(let session):
            return .signedIn(try await commitSignIn(session))
        case .confirmationRequired:
            return result
        }
    }

    /// Verifies a one-time code from an email (sign-up confirmation, recovery, magic link) and
    /// signs in with the session it yields.
    /// - Throws: ``AuthFailure``.
    @discardableResult
    public func verify(type: VerificationType, email: String, token: String) async throws -> Session {
        do {
            let session = try await backend.verify(type: type, email: email, token: token)
            return try await commitSignIn(session)
        } catch {
            throw AuthFailure(error)
        }
    }

    /// Changes the user's email, password or metadata, and emits ``SessionEvent/userUpdated(_:)``.
    /// - Throws: ``AuthFailure``.
    @discardableResult
    public func updateUser(_ update: UserUpdate) async throws -> User {
        let session = try await self.session(minTTL: 30)
        let generation = self.generation
        do {
            let user = try await backend.updateUser(accessToken: session.accessToken, update)
            await updateStoredUser(user, generation: generation)
            return user
        } catch {
            throw AuthFailure(error)
        }
    }

    /// Sends the sign-up confirmation email again.
    /// - Throws: ``AuthFailure`` (e.g. ``AuthFailure/Category/rateLimited(retryAfter:)``).
    public func resendConfirmation(email: String) async throws {
        do {
            try await backend.resendConfirmation(email: email.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw AuthFailure(error)
        }
    }

    /// Sends a password-reset email ("Forgot Password?").
    /// - Throws: ``AuthFailure``.
    public func recoverPassword(email: String) async throws {
        do {
            try await backend.recoverPassword(email: email.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw AuthFailure(error)
        }
    }

    /// Stores and publishes a session obtained with credentials. Switching to another account
    /// runs the cleanup steps first, so one account never sees another's local data.
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
        generation += 1
        retryAttempt = 0
        await persist(record, under: lock)
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
}
