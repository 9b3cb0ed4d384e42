import Foundation
import LatchkeyTesting
import LatchkeyWire
import Testing

@testable import Latchkey

/// The pieces of a provider sign-in that need no server: the nonce, the `/authorize` URL, the
/// redirect a sign-in comes back with, and the name Sign in with Apple gives once.
@Suite("Provider sign-in: nonce, authorize URL, redirects, Apple's name")
struct ProviderPrimitivesTests {
    @Test("a nonce is 64 random hex characters; its hash is the SHA-256 hex the provider puts in the ID token; it never prints")
    func nonce() {
        let nonce = SignInNonce()
        #expect(nonce.raw.count == 64)
        #expect(nonce.raw.allSatisfy { $0.isHexDigit })
        #expect(nonce != SignInNonce())
        #expect(nonce.hashed == TestIdentityProvider.hashedNonce(nonce.raw))
        #expect(SignInNonce(raw: "abc").hashed == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        for text in [
            "\(nonce)", String(reflecting: nonce),
            {
                var out = ""
                dump(nonce, to: &out)
                return out
            }(),
        ] {
            #expect(!text.contains(nonce.raw))
            #expect(!text.contains(nonce.hashed))
        }
    }

    @Test("the /authorize URL carries the provider, the redirect, the scopes and an S256 challenge, all percent-encoded")
    func authorizeURL() throws {
        let backend = GoTrueBackend(configuration: .init(baseURL: URL(string: "https://project.example.com/auth/v1")!, apiKey: "anon"))
        let pkce = PKCE(verifier: String(repeating: "v", count: 43))
        let url = try backend.authorizeURL(
            provider: "google", redirectTo: "com.example.app://auth?next=/home&x=1+2", scopes: "openid email", codeChallenge: pkce.challenge)
        #expect(url.absoluteString.hasPrefix("https://project.example.com/auth/v1/authorize?provider=google&redirect_to="))
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        let query = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
        #expect(query["redirect_to"] == "com.example.app://auth?next=/home&x=1+2")
        #expect(query["scopes"] == "openid email")
        #expect(query["code_challenge"] == pkce.challenge)
        #expect(query["code_challenge_method"] == "s256")
        #expect(!url.absoluteString.contains("+"), "a + would read as a space")
        #expect(!url.absoluteString.contains(pkce.verifier))
        let noScopes = try backend.authorizeURL(provider: "apple", redirectTo: "com.example.app://auth", scopes: nil, codeChallenge: "c")
        #expect(!noScopes.absoluteString.contains("scopes"))
    }

    @Test("a redirect is a code, an implicit session, an error (query or fragment), or nothing; it never prints a secret")
    func redirects() throws {
        let code = ProviderRedirect(URL(string: "com.example.app://auth?code=AUTHCODE")!)
        #expect(code == .code("AUTHCODE"))
        #expect(!"\(code)".contains("AUTHCODE"))

        let implicit = ProviderRedirect(
            URL(
                string:
                    "com.example.app://auth#access_token=AT&refresh_token=RT&expires_in=3600&expires_at=1700000000&token_type=bearer&provider_token=PT"
            )!)
        guard case .tokens(let tokens) = implicit else {
            Issue.record("expected tokens, got \(implicit)")
            return
        }
        #expect(tokens.accessToken == "AT" && tokens.refreshToken == "RT" && tokens.providerToken == "PT")
        #expect(tokens.expiresIn == 3600)
        #expect(tokens.expiresAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(!"\(implicit)".contains("AT") && !"\(implicit)".contains("RT"))

        let queryError = ProviderRedirect(
            URL(string: "com.example.app://auth?error=access_denied&error_code=provider_email_needs_verification&error_description=Verify+first")!)
        #expect(queryError == .failure(error: "access_denied", code: "provider_email_needs_verification", description: "Verify first"))
        let fragmentError = ProviderRedirect(URL(string: "com.example.app://auth#error=server_error&error_description=Provider%20down")!)
        #expect(fragmentError == .failure(error: "server_error", code: nil, description: "Provider down"))
        #expect(ProviderRedirect(URL(string: "com.example.app://auth?code=X#error=access_denied")!) != .code("X"), "an error wins")
        #expect(ProviderRedirect(URL(string: "com.example.app://auth")!) == .none)
        #expect(ProviderRedirect(URL(string: "com.example.app://auth#access_token=AT")!) == .none, "no refresh token, no session")
    }

    @Test("an error redirect is an AuthFailure with the error_code and the description, sorted into the taxonomy")
    func redirectFailures() {
        let unverified = ProviderRedirect.authFailure(error: "access_denied", code: "provider_email_needs_verification", description: "Verify first")
        #expect(unverified.category == .invalidInput)
        #expect(unverified.code == "provider_email_needs_verification")
        #expect(unverified.detail == "Verify first")
        #expect(ProviderRedirect.authFailure(error: "access_denied", code: nil, description: nil).category == .permission)
        #expect(ProviderRedirect.authFailure(error: "server_error", code: nil, description: nil).category == .server)
        #expect(ProviderRedirect.authFailure(error: "temporarily_unavailable", code: nil, description: nil).isRetryable)
        #expect(ProviderRedirect.authFailure(error: "invalid_request", code: "bad_oauth_state", description: nil).category == .invalidInput)
    }

    @Test("Apple's name goes into user_metadata once: full, given and family names, never over a stored full_name")
    func appleName() {
        var name = PersonNameComponents()
        name.givenName = " Ada "
        name.middleName = "King"
        name.familyName = "Lovelace"
        let credential = AppleSignInCredential(identityToken: "header.payload.signature", fullName: name)
        #expect(
            credential.nameMetadata(existing: [:]) == [
                "full_name": .string("Ada King Lovelace"), "given_name": .string("Ada"), "family_name": .string("Lovelace"),
            ])
        #expect(credential.nameMetadata(existing: ["full_name": .string("Countess")]) == nil, "stored once")
        #expect(credential.nameMetadata(existing: ["full_name": .string("")]) != nil)
        #expect(AppleSignInCredential(identityToken: "t").nameMetadata(existing: [:]) == nil, "no name after the first authorization")
        #expect(AppleSignInCredential(identityToken: "t", fullName: PersonNameComponents()).nameMetadata(existing: [:]) == nil)
        var givenOnly = PersonNameComponents()
        givenOnly.givenName = "Grace"
        #expect(
            AppleSignInCredential(identityToken: "t", fullName: givenOnly).nameMetadata(existing: [:]) == [
                "full_name": .string("Grace"), "given_name": .string("Grace"),
            ])
        #expect(!"\(credential)".contains("header.payload"))
        #expect(!String(reflecting: credential).contains("Ada"))
    }

    @Test("identities decode from GoTrue's user object and round-trip through the stored form")
    func identities() throws {
        let json = """
            {"id":"u1","identities":[{"identity_id":"i1","id":"sub-1","user_id":"u1","provider":"google","email":"ada@example.com",
            "identity_data":{"email_verified":true},"created_at":"2024-01-02T03:04:05Z","last_sign_in_at":"2024-01-02T03:04:05.123456Z"},
            {"id":"u1","user_id":"u1","provider":"email","identity_data":{}}]}
            """
        let user = User(wire: try JSONDecoder().decode(UserResponse.self, from: Data(json.utf8)))
        #expect(user.identities.map(\.provider) == ["google", "email"])
        #expect(user.identities[0].identityID == "i1" && user.identities[0].providerUserID == "sub-1")
        #expect(user.identities[0].email == "ada@example.com")
        #expect(user.identities[0].createdAt == Date(timeIntervalSince1970: 1_704_164_645))
        #expect(user.identities[1].identityID == "u1", "an older server's identity is known by its id")
        let stored = try JSONDecoder().decode(User.self, from: try JSONEncoder().encode(user))
        #expect(stored == user)
    }
}
