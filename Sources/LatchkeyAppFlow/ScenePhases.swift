import Latchkey

/// The app's phase from the phases of its scenes: on iPad and Mac an app has several windows,
/// and SwiftUI reports a `scenePhase` for each. The app is `active` while any scene is,
/// `inactive` while none is active but one is inactive, and `background` only when every
/// scene is (or none is left).
///
/// Report each scene's phase here and forward ``phase`` to the models
/// (``LaunchRouter/setPhase(_:)``), never a single scene's: a second window going to the
/// background must not lock the app or pause refresh for the window still in front.
public struct ScenePhases: Sendable, Equatable {
    private var phases: [String: AppPhase] = [:]

    /// No scene yet: `background`.
    public init() {}

    /// The app's phase.
    public var phase: AppPhase {
        if phases.values.contains(.active) { return .active }
        if phases.values.contains(.inactive) { return .inactive }
        return .background
    }

    /// Records the phase of the scene `scene` (any stable identifier, e.g. a `UUID` kept in
    /// the scene's `@State`) and returns the app's phase.
    @discardableResult
    public mutating func set(_ phase: AppPhase, for scene: String) -> AppPhase {
        phases[scene] = phase
        return self.phase
    }

    /// Forgets a scene that was closed (`onDisappear`) and returns the app's phase.
    @discardableResult
    public mutating func remove(_ scene: String) -> AppPhase {
        phases.removeValue(forKey: scene)
        return phase
    }
}
