import Foundation
import Latchkey
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Logging

@testable import LatchkeyAppFlow

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One installation of an app built on the flow models, against a ``TestServer``: a keychain
/// that survives reinstalls, preferences, an install marker and an app container that do not,
/// a client clock the test moves, a counting transport and a scripted authenticator.
@MainActor
final class FlowApp {
    let server: TestServer
    /// Survives reinstalls; a reboot locks it until the first unlock.
    let keychain = LockableStore()
    private(set) var preferences = MemoryPreferences()
    private(set) var marker = MemoryInstallMarker(isSet: false)
    private(set) var container: URL
    let clock: ManualSessionClock
    let transport = SpyTransport()
    /// In front of ``transport``: holds requests when a test asks.
    let gate: GatedTransport
    let authenticator = ScriptedAuthenticator()
    var useInstallMarker = true
    var signOutPolicy: UserDataSpace.SignOutPolicy = .keep
    var configureManager: @Sendable (inout SessionManagerConfiguration) -> Void = { _ in }
    var configureRouter: (inout LaunchRouter.Configuration) -> Void = { _ in }
    var lockConfiguration = AppLock.Configuration()
    /// The words every model of the next launches shows.
    var strings = AppFlowStrings()
    /// Every launch, kept until ``finish()`` settles them.
    private var launches: [FlowLaunch] = []

    init(server: TestServer, clock: ManualSessionClock = ManualSessionClock(Date())) {
        self.server = server
        self.clock = clock
        gate = GatedTransport(base: transport)
        container = temporaryDirectory("latchkey-app")
        flowApps[ObjectIdentifier(server), default: []].append(self)
    }

    /// A cold start: new manager, router, data space, lock and overlay over the same stores.
    func launch(onboarding: Bool = true) async -> FlowLaunch {
        var configuration = SessionManagerConfiguration()
        configureManager(&configuration)
        let manager = SessionManager(
            backend: server.backend(transport: gate), store: keychain, configuration: configuration,
            installMarker: useInstallMarker ? marker : nil, clock: clock, logger: .quiet)
        let dataSpace = UserDataSpace(
            configuration: .init(
                root: container.appendingPathComponent("Data"), legacyDirectory: legacyDirectory, signOutPolicy: signOutPolicy), logger: .quiet)
        await dataSpace.attach(to: manager)
        let lock = AppLock(
            authenticator: authenticator, preferences: preferences, configuration: lockConfiguration, strings: strings,
            clock: clock.continuous, logger: .quiet)
        var routerConfiguration = LaunchRouter.Configuration()
        configureRouter(&routerConfiguration)
        let router = LaunchRouter(
            manager: manager, onboarding: onboarding ? OnboardingFlag(preferences: preferences) : nil,
            appLock: lock, privacyOverlay: PrivacyOverlay(), configuration: routerConfiguration, strings: strings,
            clock: clock, logger: .quiet)
        let launch = FlowLaunch(manager: manager, router: router, dataSpace: dataSpace, lock: lock)
        launches.append(launch)
        return launch
    }

    /// A cold start whose router has decided the launch (``LaunchRouter/start()`` returned).
    func start(onboarding: Bool = true) async -> FlowLaunch {
        let launch = await launch(onboarding: onboarding)
        await launch.router.start()
        return launch
    }

    /// Deleting the app and installing it again: preferences, install marker and app container
    /// are gone; the keychain is not.
    func reinstall() {
        preferences = MemoryPreferences()
        marker = MemoryInstallMarker(isSet: false)
        removeDirectory(container)
        container = temporaryDirectory("latchkey-app")
    }

    /// The device restarts: until ``firstUnlock()`` the keychain is locked and the preferences
    /// and install marker cannot be read, as before the first unlock after a reboot.
    func reboot() async {
        await keychain.setLocked(true)
        preferences.isAvailable = false
        await marker.setReadable(false)
    }

    /// The person unlocks the device for the first time since it restarted.
    func firstUnlock() async {
        await keychain.setLocked(false)
        preferences.isAvailable = true
        await marker.setReadable(true)
    }

    var legacyDirectory: URL { container.appendingPathComponent("LegacyStore", isDirectory: true) }

    func remove() { removeDirectory(container) }

    /// Brings every launch's data space up to date with its manager (so no event still in
    /// flight opens a directory afterwards), stops the launches, and removes the container.
    func finish() async {
        for launch in launches {
            await launch.dataSpace.synchronize(with: launch.manager)
            await launch.terminate()
        }
        launches = []
        remove()
    }
}

/// The apps created against each running server, finished when ``withFlowServer(autoconfirm:_:)`` ends.
@MainActor
private var flowApps: [ObjectIdentifier: [FlowApp]] = [:]

/// What one launch of the app holds.
@MainActor
final class FlowLaunch {
    let manager: SessionManager
    let router: LaunchRouter
    let dataSpace: UserDataSpace
    let lock: AppLock

    init(manager: SessionManager, router: LaunchRouter, dataSpace: UserDataSpace, lock: AppLock) {
        self.manager = manager
        self.router = router
        self.dataSpace = dataSpace
        self.lock = lock
    }

    /// Waits (real time) until the router shows `route`.
    func waitForRoute(_ route: LaunchRoute, timeout: TimeInterval = 30) async -> Bool {
        await eventually(timeout: timeout) { self.router.route == route }
    }

    /// Waits until the data space follows the manager (opened for `userID`, or closed).
    func waitForDataSpace(user userID: String?, timeout: TimeInterval = 30) async -> Bool {
        await eventually(timeout: timeout) { self.dataSpace.currentUserID == userID }
    }

    /// Signs in through a login form the router makes, and waits for `main`.
    func logIn(email: String, password: String = "correct horse battery") async -> Bool {
        let form = router.makeLoginForm()
        form.email = email
        form.password = password
        await form.submit()
        return await waitForRoute(.main)
    }

    /// The app going to the background before it is killed: its timers stop.
    func terminate() async {
        await router.setPhase(.background).value
    }
}

extension TestServer {
    /// Creates an account through the API (as another device would), confirmed or not.
    func createAccount(email: String, password: String = "correct horse battery") async throws -> String {
        let result = try await backend().signUp(email: email, password: password, data: [:])
        switch result {
        case .signedIn(let session): return session.user.id
        case .confirmationRequired(let user): return user.id
        }
    }

    /// Clicks the newest confirmation link sent to `email`: reads the token from the outbox and
    /// verifies it, as the browser opening the link does.
    func clickConfirmationLink(for email: String) async throws {
        let directory = server.outboxDirectory
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let mails = try files.map { try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8) }
        guard let mail = mails.last(where: { $0.contains("To: \(email)") && $0.contains("type=signup") }),
            let range = mail.range(of: "token=")
        else {
            throw AuthFailure(.unknown, code: "no_confirmation_mail")
        }
        let token = mail[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        var request = URLRequest(url: baseURL.appendingPathComponent("verify"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(server.anonKey, forHTTPHeaderField: "apikey")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["type": "signup", "token_hash": String(token)])
        let (_, response) = try await URLSession.shared.cancellableData(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw AuthFailure(.unknown, code: "verify_failed") }
    }

    /// Confirms or un-confirms a user's email through the admin API.
    func setEmailConfirmed(_ userID: String, _ confirmed: Bool) async throws {
        let (status, _) = try await admin("PUT", "admin/users/\(userID)", body: ["email_confirm": confirmed])
        precondition(status == 200, "admin update failed with \(status)")
    }
}

/// Writes a small file into `directory` (creating it), as the app's database would.
func writeFile(_ name: String, in directory: URL, contents: String = "data") throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data(contents.utf8).write(to: directory.appendingPathComponent(name))
}

func fileNames(in directory: URL?) -> [String] {
    guard let directory else { return [] }
    return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
}

/// Runs `body` on the main actor against a fresh server, and always stops it.
@MainActor
func withFlowServer(
    autoconfirm: Bool = true, smsSender: (any SMSSender)? = nil, configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
    _ body: @MainActor (TestServer) async throws -> Void
) async throws {
    let server = try await TestServer.start(autoconfirm: autoconfirm, smsSender: smsSender, configure: configure)
    func finish() async {
        for app in flowApps.removeValue(forKey: ObjectIdentifier(server)) ?? [] { await app.finish() }
        await server.stop()
    }
    do {
        try await body(server)
    } catch {
        await finish()
        throw error
    }
    await finish()
}

/// Runs `body` against a fresh server with one account (`password`) and an installation of the
/// app to use it; the app is finished and the server stopped afterwards.
@MainActor
func withFlowAccount(
    autoconfirm: Bool = true, password: String = "correct horse battery",
    _ body: @MainActor (_ server: TestServer, _ app: FlowApp, _ email: String, _ userID: String) async throws -> Void
) async throws {
    try await withFlowServer(autoconfirm: autoconfirm) { server in
        let email = uniqueEmail()
        let userID = try await server.createAccount(email: email, password: password)
        try await body(server, FlowApp(server: server), email, userID)
    }
}
