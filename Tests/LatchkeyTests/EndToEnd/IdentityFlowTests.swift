import Foundation
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import LatchkeyWire
import Testing

@testable import Latchkey

/// ID-token sign-in, identities, linking and unlinking against the real server, with
/// `TestIdentityProvider` as the OpenID provider (Keycloak, and Apple's stand-in).
@Suite("End to end: ID-token sign-in, identities, Sign in with Apple")
struct IdentityFlowTests {
    static let clientID = "latchkey-test-app"

    func withProvider(_ body: (TestServer, TestIdentityProvider) async throws -> Void) async throws {
        try await TestIdentityProvider.with { provider in
            try await withTestServer(configure: { configuration in
                configuration.external.allowLoopbackProviders = true
                configuration.external.keycloak = ProviderSettings(enabled: true, clientIDs: [Self.clientID], url: provider.issuer)
                configuration.external.apple = ProviderSettings(enabled: true, clientIDs: ["com.example.services"])
                configuration.external.iosBundleID = "com.example.app"
                configuration.external.issuerOverrides = ["apple": provider.issuer, "firebase": provider.issuer]
                configuration.external.firebaseProjectID = "demo-latchkey"
                configuration.external.manualLinkingEnabled = true
            }) { server in
                try await body(server, provider)
            }
        }
    }

    @Test("signInWithIdToken with a nonce signs in and lists the identity; a wrong nonce is refused")
    func idTokenSignIn() async throws {
        try await withProvider { server, provider in
            let manager = E2EApp(server: server).launch()
            await manager.restore()
            let nonce = SignInNonce()
            let token = try provider.idToken(subject: "ada", audience: Self.clientID, email: "ada@example.com", nonce: nonce.raw)
            do {
                try await manager.account.signInWithIdToken(provider: .keycloak, idToken: token, nonce: SignInNonce().raw)
                Issue.record("a nonce that does not match must be refused")
            } catch let failure as AuthFailure {
                #expect(failure.category == .invalidInput)
            }
            let session = try await manager.account.signInWithIdToken(provider: .keycloak, idToken: token, nonce: nonce.raw)
            #expect(session.user.email == "ada@example.com")
            #expect(session.user.identities.map(\.provider) == ["keycloak"])
            #expect(session.user.identities.first?.providerUserID == "ada")
            #expect(await manager.state == .signedIn(session))
            #expect(try await manager.identities.list().map(\.provider) == ["keycloak"])
        }
    }

    @Test("migrateFromFirebase: a Firebase ID token becomes a saved session; the same UID is the same user on the next device")
    func firebaseMigration() async throws {
        try await withProvider { server, provider in
            let manager = E2EApp(server: server).launch()
            await manager.restore()
            let token = try provider.idToken(subject: "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2", audience: "demo-latchkey", email: "grace@example.com")
            let session = try await manager.account.migrateFromFirebase(idToken: token)
            #expect(session.user.identities.map(\.provider) == ["firebase"])
            #expect(session.user.identities.first?.providerUserID == "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2")
            #expect(await manager.state == .signedIn(session))

            let other = E2EApp(server: server).launch()
            await other.restore()
            let again = try await other.account.migrateFromFirebase(idToken: token)
            #expect(again.user.id == session.user.id)
            do {
                _ = try await other.account.migrateFromFirebase(
                    idToken: try provider.idToken(subject: "someone", audience: "another-project", email: "x@example.com"))
                Issue.record("another project's token must be refused")
            } catch let failure as AuthFailure {
                #expect(failure.category == .invalidInput)
            }
        }
    }

    @Test("link with an ID token adds the identity to the signed-in account; unlink removes it; the last one stays")
    func linkAndUnlink() async throws {
        try await withProvider { server, provider in
            let (manager, signedUp) = try await E2EApp(server: server).signUp()
            let token = try provider.idToken(subject: "grace-sub", audience: Self.clientID, email: "grace.elsewhere@example.com")
            let linked = try await manager.identities.link(provider: .keycloak, idToken: token)
            #expect(linked.user.id == signedUp.user.id)
            let identities = try await manager.identities.list()
            #expect(Set(identities.map(\.provider)) == ["email", "keycloak"])

            let keycloak = try #require(identities.first { $0.provider == "keycloak" })
            try await manager.identities.unlink(keycloak)
            #expect(await manager.currentSession?.user.identities.map(\.provider) == ["email"], "the stored user is fetched again")

            let email = try #require(try await manager.identities.list().first)
            do {
                try await manager.identities.unlink(email)
                Issue.record("the last identity cannot be removed")
            } catch let failure as AuthFailure {
                #expect(failure.code == "single_identity_not_deletable")
                #expect(failure.category == .invalidInput)
            }
            #expect(await manager.state.session != nil, "a refused unlink keeps the session")
        }
    }

    @Test("signInWithApple stores the name Apple gives on the first authorization, once")
    func appleName() async throws {
        try await withProvider { server, provider in
            let manager = E2EApp(server: server).launch()
            await manager.restore()
            var name = PersonNameComponents()
            name.givenName = "Ada"
            name.familyName = "Lovelace"
            let nonce = SignInNonce()
            let first = AppleSignInCredential(
                identityToken: try provider.idToken(
                    subject: "apple-ada", audience: "com.example.app", email: "ada@privaterelay.example", nonce: nonce.raw),
                fullName: name)
            let session = try await manager.account.signInWithApple(first, nonce: nonce)
            #expect(session.user.userMetadata["full_name"] == .string("Ada Lovelace"))
            #expect(session.user.userMetadata["given_name"] == .string("Ada"))
            #expect(session.user.userMetadata["family_name"] == .string("Lovelace"))

            name.givenName = "Someone"
            let again = SignInNonce()
            let second = AppleSignInCredential(
                identityToken: try provider.idToken(subject: "apple-ada", audience: "com.example.app", nonce: again.raw), fullName: name)
            let later = try await manager.account.signInWithApple(second, nonce: again)
            #expect(later.user.id == session.user.id)
            #expect(later.user.userMetadata["full_name"] == .string("Ada Lovelace"))
        }
    }
}
