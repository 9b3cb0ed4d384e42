import Latchkey
import Observation

/// Whether to cover the app's content so the app switcher's snapshot and onlookers see no
/// sensitive data.
///
/// Driven by the scene phase: shown on `inactive` and `background` (the app switcher, a
/// notification-centre pull, Siri, the device locking), hidden on `active`. It is shown at once,
/// before the system takes its snapshot.
///
/// ```swift
/// ZStack {
///     content
///     if overlay.isVisible { PrivacyOverlayView() }
/// }
/// .onChange(of: scenePhase) { _, phase in overlay.setPhase(AppPhase(phase)) }
/// ```
@MainActor
@Observable
public final class PrivacyOverlay {
    /// Whether the overlay covers the app now.
    public private(set) var isVisible = false
    /// Whether the overlay is used at all (a setting an app may expose). Default `true`.
    public var isEnabled: Bool {
        didSet { if !isEnabled { isVisible = false } }
    }

    /// The last phase reported.
    public private(set) var phase: AppPhase = .active

    /// Creates an overlay, hidden, for an app that starts `active`.
    public init(isEnabled: Bool = true) {
        self.isEnabled = isEnabled
    }

    /// Reports the scene phase: `inactive` and `background` show the overlay, `active` hides it.
    public func setPhase(_ phase: AppPhase) {
        self.phase = phase
        switch phase {
        case .active: isVisible = false
        case .inactive, .background: isVisible = isEnabled
        }
    }
}
