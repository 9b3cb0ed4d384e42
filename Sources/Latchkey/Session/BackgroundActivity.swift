import Foundation

#if canImport(UIKit) && os(iOS)
import UIKit
#endif

/// Keeps the process running while Latchkey holds the cross-process lock
/// (``SessionManagerConfiguration/crossProcessLockURL``).
///
/// iOS suspends an app, or an app extension, shortly after it leaves the foreground, and kills
/// a process that is suspended while it holds a lock on a file in a shared container (the crash
/// report says `0xdead10cc`). So Latchkey takes the lock only inside an assertion from the system
/// (``begin(name:expiration:)``), holds it for at most
/// ``SessionManagerConfiguration/crossProcessLockMaximumHold``, gives it up the moment the
/// system says time is up, and ends the assertion only after the lock is released: the lock is
/// never held across a suspension.
///
/// - `ExpiringActivity` (iOS, iPadOS, tvOS, watchOS, visionOS; apps and extensions): the
///   default there. `ProcessInfo.performExpiringActivity(withReason:using:)`.
/// - `UIApplicationBackgroundTask` (iOS, iPadOS, Mac Catalyst; apps only, not extensions):
///   `UIApplication.beginBackgroundTask(withName:expirationHandler:)`.
/// - ``NoBackgroundActivity``: macOS and Linux, where a process is not suspended under its
///   locks: the default there.
public protocol BackgroundActivity: Sendable {
    /// Asks the system to keep the process running until the assertion ends.
    /// - Parameters:
    ///   - name: Names the assertion in the system's logs.
    ///   - expiration: Called at most once, on any thread, when the system is about to suspend
    ///     the process before the assertion ended: release what must not be held across a
    ///     suspension, then end the assertion — quickly.
    /// - Returns: The assertion, or `nil` when the system grants no time (the process is about
    ///   to be suspended): then take no lock.
    func begin(name: String, expiration: @escaping @Sendable () -> Void) async -> (any BackgroundActivityAssertion)?
}

/// A running ``BackgroundActivity`` assertion.
public protocol BackgroundActivityAssertion: Sendable {
    /// Ends the assertion: the system may suspend the process from now on. Calling it again
    /// does nothing.
    func end()
}

/// For platforms that do not suspend a process holding a lock (macOS, Linux): every assertion
/// is granted and never expires.
public struct NoBackgroundActivity: BackgroundActivity {
    public init() {}

    public func begin(name: String, expiration: @escaping @Sendable () -> Void) async -> (any BackgroundActivityAssertion)? {
        Assertion()
    }

    private struct Assertion: BackgroundActivityAssertion {
        func end() {}
    }
}

extension SessionManagerConfiguration {
    /// The platform's ``BackgroundActivity``: `ExpiringActivity` where the system suspends
    /// processes (iOS, iPadOS, tvOS, watchOS, visionOS), ``NoBackgroundActivity`` elsewhere.
    public static var platformBackgroundActivity: any BackgroundActivity {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        ExpiringActivity()
        #else
        NoBackgroundActivity()
        #endif
    }
}

// Apple platforms only: not compiled on Linux, so not compiled by CI. Written against Foundation's
// documented `ProcessInfo.performExpiringActivity(withReason:using:)` (iOS 8.2, tvOS 9,
// watchOS 2, visionOS 1; not macOS): "Performs the specified block asynchronously and notifies
// you if the process is about to be suspended"; the block is `@Sendable (Bool) -> Void`, called
// with `false` to start the work and again with `true` when the process is about to be
// suspended. The assertion lasts while the first call runs, so that call waits on a semaphore
// (on a Dispatch worker thread, never a Swift concurrency thread) until ``end()``.
#if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
/// A ``BackgroundActivity`` over `ProcessInfo.performExpiringActivity(withReason:using:)`:
/// works in apps and in app extensions. Each assertion occupies one Dispatch worker thread,
/// waiting, until it ends; Latchkey holds at most one at a time per manager.
public struct ExpiringActivity: BackgroundActivity {
    public init() {}

    public func begin(name: String, expiration: @escaping @Sendable () -> Void) async -> (any BackgroundActivityAssertion)? {
        let assertion = ExpiringActivityAssertion(expiration: expiration)
        let granted = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            assertion.start(continuation)
            ProcessInfo.processInfo.performExpiringActivity(withReason: name) { expired in
                assertion.run(expired: expired)
            }
        }
        return granted ? assertion : nil
    }
}

/// One `performExpiringActivity` call: its first block waits until ``end()``.
final class ExpiringActivityAssertion: BackgroundActivityAssertion, @unchecked Sendable {
    private struct State {
        var started: CheckedContinuation<Bool, Never>?
        var running = false
        var ended = false
        var expired = false
    }

    private let state = LockedValue(State())
    private let finished = DispatchSemaphore(value: 0)
    private let expiration: @Sendable () -> Void

    init(expiration: @escaping @Sendable () -> Void) {
        self.expiration = expiration
    }

    func start(_ continuation: CheckedContinuation<Bool, Never>) {
        state.withLock { $0.started = continuation }
    }

    /// The block given to `performExpiringActivity`.
    func run(expired: Bool) {
        if !expired {
            let started = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                state.running = true
                defer { state.started = nil }
                return state.started
            }
            started?.resume(returning: true)
            finished.wait()  // the assertion lasts while this block runs
            return
        }
        let (refused, notify) = state.withLock { state -> (CheckedContinuation<Bool, Never>?, Bool) in
            if !state.running {
                // No time granted at all: the block is called with `true` first.
                defer { state.started = nil }
                return (state.started, false)
            }
            defer { state.expired = true }
            return (nil, !state.expired && !state.ended)
        }
        refused?.resume(returning: false)
        if notify { expiration() }  // releases the lock, then calls end()
    }

    func end() {
        let first = state.withLock { state -> Bool in
            defer { state.ended = true }
            return !state.ended
        }
        if first { finished.signal() }
    }
}
#endif

// Apple platforms only: not compiled on Linux, so not compiled by CI. Written against UIKit's
// documented `UIApplication.beginBackgroundTask(withName:expirationHandler:)` — `nonisolated`,
// the handler `(@MainActor @Sendable () -> Void)?` "called shortly before the app's remaining
// background time reaches 0 ... synchronously on the main thread", returning `.invalid` "if
// running in the background is not possible" — and `endBackgroundTask(_:)` ("can be safely
// called on a non-main thread"). `UIApplication.shared` is main-actor isolated and unavailable
// in app extensions, hence `@available(iOSApplicationExtension, unavailable)`.
#if canImport(UIKit) && os(iOS)
/// A ``BackgroundActivity`` over `UIApplication.beginBackgroundTask(withName:expirationHandler:)`,
/// for apps (not available in app extensions: use ``ExpiringActivity`` there).
@available(iOSApplicationExtension, unavailable)
public struct UIApplicationBackgroundTask: BackgroundActivity {
    public init() {}

    public func begin(name: String, expiration: @escaping @Sendable () -> Void) async -> (any BackgroundActivityAssertion)? {
        let application = await MainActor.run { UIApplication.shared }
        let assertion = BackgroundTaskAssertion(application: application)
        let identifier = application.beginBackgroundTask(withName: name) {
            assertion.expire(expiration)
        }
        guard identifier != .invalid else { return nil }
        assertion.started(identifier.rawValue)
        return assertion
    }
}

/// One background task; ended exactly once, after the lock is released.
@available(iOSApplicationExtension, unavailable)
final class BackgroundTaskAssertion: BackgroundActivityAssertion, Sendable {
    private struct State {
        var identifier: Int?
        var ended = false
        var expired = false
    }

    private let application: UIApplication
    private let state = LockedValue(State())

    init(application: UIApplication) {
        self.application = application
    }

    /// Records the task's identifier; ends it at once if it was ended before it was known.
    func started(_ identifier: Int) {
        let endNow = state.withLock { state -> Bool in
            state.identifier = identifier
            return state.ended
        }
        if endNow { application.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: identifier)) }
    }

    /// The expiration handler: tells Latchkey, which releases the lock and then calls ``end()``;
    /// then ends the task itself, in case Latchkey had not been handed this assertion yet (UIKit
    /// terminates an app whose expired task is not ended).
    func expire(_ expiration: @Sendable () -> Void) {
        let first = state.withLock { state -> Bool in
            defer { state.expired = true }
            return !state.expired && !state.ended
        }
        if first { expiration() }
        end()
    }

    func end() {
        let identifier = state.withLock { state -> Int? in
            guard !state.ended else { return nil }
            state.ended = true
            return state.identifier
        }
        if let identifier { application.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: identifier)) }
    }
}
#endif
