import Foundation
import Logging

/// The parts of the server its use cases share, made once in ``FeatureDependencies``: the store, the
/// clock, the rate limits, the password policy, the session issuer, opaque tokens, the notices
/// mailed to users, the logger and the hooks asked around a new account.
///
/// A use case holds one of these (``ServiceDependent``) beside what is its own (its settings,
/// the other use cases it calls), as a Hummingbird handler gets one request context.
struct ServiceDependencies: Sendable {
    let store: any AuthStore
    let clock: any ServerClock
    let limits: RateLimits
    let passwords: PasswordPolicy
    let sessions: SessionIssuer
    let tokens: OpaqueTokens
    /// The notices mailed when an account changes (password, email, phone, identities, factors).
    let notices: AccountNotices
    let logger: Logger
    /// The before user created hook, when it is on: asked before an account is made, its
    /// refusal is the request's error and nothing is stored or sent.
    var beforeUserCreated: BeforeUserCreatedHook? = nil
    /// The after user created hook, when one is configured: told of each account made.
    var afterUserCreated: AfterUserCreatedHook? = nil
}

/// A type built on the shared ``ServiceDependencies``: it names the shared parts directly
/// (`store`, `clock`, …) and declares only what is its own.
protocol ServiceDependent: Sendable {
    var shared: ServiceDependencies { get }
}

extension ServiceDependent {
    var store: any AuthStore { shared.store }
    var clock: any ServerClock { shared.clock }
    var limits: RateLimits { shared.limits }
    var passwords: PasswordPolicy { shared.passwords }
    var sessions: SessionIssuer { shared.sessions }
    var tokens: OpaqueTokens { shared.tokens }
    var notices: AccountNotices { shared.notices }
    var logger: Logger { shared.logger }
    var beforeUserCreated: BeforeUserCreatedHook? { shared.beforeUserCreated }
    var afterUserCreated: AfterUserCreatedHook? { shared.afterUserCreated }
}
