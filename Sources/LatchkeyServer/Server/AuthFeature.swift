import Hummingbird

/// One part of the server: its routes, the guards on them, and the use cases behind them.
///
/// A feature is built once, from the server's ``FeatureDependencies``, and registers its routes
/// with their route-group guards (signed in, administrator, not anonymous, enabled, rate
/// limits). ``LatchkeyApplication/features`` lists every feature; adding one is a folder and a
/// line there.
protocol AuthFeature: Sendable {
    /// The feature, with its use cases built from `dependencies`.
    init(_ dependencies: FeatureDependencies)

    /// Adds the feature's routes, and the middleware of its route groups, to `router`.
    func register(on router: Router<AuthRequestContext>)
}
