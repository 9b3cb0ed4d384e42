import Foundation
import Latchkey
import Observation

/// The offer to add a passkey after a password sign-in, for a view (an alert or a sheet) to bind
/// to: "Sign In Faster — Add Passkey / Not Now".
///
/// It is presented once per account on this device, and only when it can help: the server has
/// passkeys on (``apply(_:)`` with its settings), the manager has a passkey authenticator
/// (`SessionManagerConfiguration.passkeyAuthenticator`), and the account has no passkey yet.
/// Whatever the person answers — add, close the system sheet, "Not Now" — it is not presented
/// again for that account; the flag lives in the app's ``AppPreferences``.
///
/// ```swift
/// let offer = PasskeyOffer(manager: manager, preferences: FilePreferences.standard)
/// let form = router.makeLoginForm(passkeyOffer: offer)
/// // SwiftUI:
/// .alert(offer.strings.passkeyOfferTitle, isPresented: Bindable(offer).isPresented) {
///     Button(offer.strings.addPasskeyButton) { Task { await offer.accept() } }
///     Button(offer.strings.notNowButton, role: .cancel) { offer.dismiss() }
/// } message: { Text(offer.strings.passkeyOfferMessage) }
/// ```
///
/// ``LoginFormModel`` calls ``passwordSignInSucceeded()`` after its password sign-ins; call it
/// yourself after other password sign-ins.
@MainActor
@Observable
public final class PasskeyOffer {
    /// Whether the offer is shown. Bind the alert to it (`Bindable(offer).isPresented`): SwiftUI
    /// setting it to `false` as the alert closes only hides it; the buttons answer the offer
    /// (``accept(name:)``, ``dismiss()``), whichever order SwiftUI runs the two in.
    public var isPresented = false
    /// Whether the offer was made and not answered yet (``accept(name:)`` still works).
    public private(set) var isOpen = false
    /// The passkeys the server has on (``apply(_:)``).
    public private(set) var passkeysEnabled = false
    private var progress = FormProgress()

    /// The words the offer shows.
    @ObservationIgnored public let strings: AppFlowStrings
    @ObservationIgnored let manager: SessionManager
    @ObservationIgnored let preferences: any AppPreferences

    /// Creates an offer.
    /// - Parameters:
    ///   - manager: The session manager whose account gets the passkey.
    ///   - preferences: Where the offer remembers, per account, that it was made.
    ///   - strings: The words the offer shows.
    public init(manager: SessionManager, preferences: any AppPreferences, strings: AppFlowStrings = .init()) {
        self.manager = manager
        self.preferences = preferences
        self.strings = strings
    }

    /// Where adding the passkey stands: `inProgress(.addPasskey)` while the system sheet is up,
    /// `failed` with the failure's presentation.
    public var status: FormStatus { progress.status }
    /// The status line, in ``strings``' words.
    public var statusText: String? { strings.text(for: status) }
    /// The latest haptic event.
    public var feedback: FormFeedback? { progress.feedback }
    /// The latest VoiceOver announcement.
    public var announcement: AccessibilityAnnouncement? { progress.announcement }

    /// Takes the server's settings: the offer is made only when passkeys are on.
    public func apply(_ settings: AuthServerSettings) {
        passkeysEnabled = settings.passkeysEnabled
    }

    /// Presents the offer if it can help the signed-in account and was never made to it here.
    /// Asks the server for the account's passkeys; when that fails the offer waits for the next
    /// sign-in. Once presented, it is marked as made.
    public func passwordSignInSucceeded() async {
        guard passkeysEnabled, manager.configuration.passkeyAuthenticator != nil, !isOpen, preferences.isAvailable,
            let userID = await manager.currentSession?.user.id
        else { return }
        let key = Self.preferenceKey(userID: userID)
        guard !preferences.bool(forKey: key) else { return }
        guard let passkeys = try? await manager.passkeys.list(), passkeys.isEmpty else { return }
        preferences.set(true, forKey: key)
        progress.reset()
        isOpen = true
        isPresented = true
    }

    /// "Add Passkey": creates a passkey with the system sheet and registers it. The offer closes
    /// when it was added or the sheet was closed, and stays (showing the failure) otherwise.
    /// - Parameter name: What to call the passkey; `nil`: the server's default. Not
    ///   `UIDevice.current.name`: since iOS 16 it is only the model ("iPhone") unless the app has
    ///   Apple's user-assigned-device-name entitlement.
    public func accept(name: String? = nil) async {
        guard isOpen, !status.isInProgress else { return }
        progress.begin(.addPasskey)
        do {
            switch try await manager.passkeys.register(name: name) {
            case .registered:
                progress.succeed(.addPasskey, announcing: strings.succeeded(.addPasskey))
            case .cancelled:
                progress.cancel(.addPasskey)
            }
            isOpen = false
            isPresented = false
        } catch {
            progress.fail(.addPasskey, error, strings)
            isPresented = true  // shows the failure; the offer is still open
        }
    }

    /// "Not Now": closes the offer for good (for this account on this device).
    public func dismiss() {
        isOpen = false
        isPresented = false
        progress.clearFailure()
    }

    /// The preference that says the offer was made to `userID`.
    static func preferenceKey(userID: String) -> String { "passkeyOffered-\(userID)" }
}
