import Foundation
import Latchkey
import Observation

/// "Session Expiring Soon": the alert shown before the session ends for good, with
/// "Stay Signed In" and "Sign Out".
///
/// Latchkey refreshes access tokens on its own, so the only session that really expires is one
/// that reaches `SessionManagerConfiguration.maximumSessionAge`; the manager announces it
/// `SessionManagerConfiguration.sessionExpiryWarning` ahead (default 5 minutes). A refresh
/// cannot push that limit back — that is its point — so staying signed in means proving who
/// you are again: ``staySignedIn()`` signs in with the current account's email and the
/// ``password`` typed into the alert, which starts a new session for the same account (no
/// cleanup runs, no local data is touched).
@MainActor
@Observable
public final class SessionExpiryWarning {
    /// Whether the alert is showing.
    public private(set) var isPresented = false
    /// When the session will end, while the alert is showing.
    public private(set) var expiresAt: Date?
    /// The password typed into the alert.
    public var password = ""
    /// Where "Stay Signed In" stands.
    public private(set) var status: FormStatus = .idle
    /// The status line under the password ("Signing in…", or the failure's message).
    public var statusText: String? { strings.text(for: status) }
    /// The alert's title.
    public var title: String { strings.sessionExpiringTitle }
    /// The button that keeps the user signed in.
    public var staySignedInTitle: String { strings.staySignedIn }
    /// The button that signs out now.
    public var signOutTitle: String { strings.signOut }

    /// The words of the alert.
    @ObservationIgnored public let strings: AppFlowStrings
    @ObservationIgnored let manager: SessionManager
    @ObservationIgnored let clock: any SessionClock
    @ObservationIgnored private var minutesAtWarning = 0
    @ObservationIgnored private var eventTask: Task<Void, Never>?

    /// Starts following `manager`'s events.
    /// - Parameters:
    ///   - manager: The session manager whose `SessionEvent.sessionExpiring(in:)` it shows.
    ///   - strings: The words of the alert.
    ///   - clock: The time source of ``expiresAt``. Pass the manager's clock when you inject one
    ///     (tests), so both measure the same time.
    public init(manager: SessionManager, strings: AppFlowStrings = .init(), clock: any SessionClock = SystemSessionClock()) {
        self.manager = manager
        self.strings = strings
        self.clock = clock
        let events = manager.events()
        eventTask = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                self.handle(event)
            }
        }
    }

    deinit {
        eventTask?.cancel()
    }

    /// "Your session will expire in 5 minutes. Would you like to stay signed in?"
    public var message: String { strings.sessionExpiringMessage(minutesAtWarning) }

    /// Whether "Stay Signed In" can be pressed: a password is typed and nothing is in flight.
    public var canStaySignedIn: Bool { !password.isEmpty && !status.isInProgress }

    /// Signs in again as the current user with ``password``; the alert closes on success.
    public func staySignedIn() async {
        guard canStaySignedIn else { return }
        guard let email = await manager.currentSession?.user.email else {
            status = .failed(.signIn, AuthFailure(.notSignedIn))
            return
        }
        status = .inProgress(.signIn)
        do {
            try await manager.account.signIn(email: email, password: password)
            status = .succeeded(.signIn)
            close()
        } catch {
            status = .failed(.signIn, AuthFailure(error))
        }
    }

    /// Signs out now (the alert's "Sign Out").
    public func signOut() async {
        close()
        await manager.signOut()
    }

    /// Closes the alert without doing anything; the session ends when it ends.
    public func dismiss() {
        close()
    }

    func handle(_ event: SessionEvent) {
        switch event {
        case .sessionExpiring(let seconds):
            minutesAtWarning = Int((seconds / 60).rounded())
            expiresAt = clock.now().addingTimeInterval(seconds)
            password = ""
            status = .idle
            isPresented = true
        case .signedIn, .signedOut:
            close()
        default:
            break
        }
    }

    private func close() {
        isPresented = false
        expiresAt = nil
        password = ""
    }
}
