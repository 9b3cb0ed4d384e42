import Foundation
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import LatchkeyAppFlow

/// A browser sheet for tests that answers with `respond`.
private struct FakeWebAuthenticator: WebAuthenticator {
    let respond: @Sendable (URL, URL) async throws -> URL
    func authenticate(url: URL, callbackURL: URL, ephemeral: Bool) async throws -> URL { try await respond(url, callbackURL) }
}

/// The login form's provider buttons: which providers, in which order, and the in-flight,
/// cancelled and failed states of a sign-in in the browser.
@Suite("App flow: login with a provider", .timeLimit(.minutes(5)))
@MainActor
struct LoginProviderTests {
    static let callback = URL(string: "com.example.app://auth")!

    @Test("the server's providers are offered, Sign in with Apple first on Apple platforms")
    func providers() async throws {
        let settings = AuthServerSettings(providers: [IdentityProvider("github"), .google, .apple])
        #expect(LoginFormModel.ordered(settings.providers, appleFirst: true) == [.apple, .github, .google])
        #expect(LoginFormModel.ordered(settings.providers, appleFirst: false) == [.github, .google, .apple])
        #expect(LoginFormModel.ordered([.google], appleFirst: true) == [.google])
        try await withFlowServer { server in
            let form = await FlowApp(server: server).start(onboarding: false).router.makeLoginForm()
            form.apply(settings)
            #expect(form.providers == LoginFormModel.ordered(settings.providers, appleFirst: LoginFormModel.isApplePlatform))
            #expect(form.providerButtonTitle(.google) == "Sign in with Google")
            #expect(form.providerButtonTitle("gitlab") == "Sign in with Gitlab")
        }
    }

    @Test("a closed sheet leaves the form cancelled and silent; a refusal shows the taxonomy's words")
    func cancelledAndFailed() async throws {
        try await withFlowServer { server in
            let outcome = LockedBox<Bool>(true)
            let app = FlowApp(server: server)
            app.configureManager = { configuration in
                configuration.webAuthenticator = FakeWebAuthenticator { _, callbackURL in
                    if outcome.value { throw WebAuthenticationError.cancelled }
                    return URL(string: callbackURL.absoluteString + "?error=server_error&error_description=down")!
                }
            }
            let form = await app.start(onboarding: false).router.makeLoginForm()
            await form.signIn(with: .google, redirectTo: Self.callback)
            #expect(form.status == .cancelled(.providerSignIn(.google)))
            #expect(form.statusText == nil)
            #expect(form.failure == nil)
            #expect(form.feedback == nil, "nothing to play for a cancellation")

            outcome.value = false
            await form.signIn(with: .google, redirectTo: Self.callback)
            #expect(form.status.failure?.category == .server)
            #expect(form.failure?.title == "Service Unavailable")
            #expect(form.feedback?.kind == .error)
            #expect(form.providerInFlight == nil)
        }
    }
}

/// A value tests change from the main actor and read from a sheet.
private final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
