import Foundation
import LatchkeyWire
import Logging

/// Sign in with Apple's refresh tokens: kept when a sign-in gives one, revoked when the
/// account is deleted, as App Review guideline 5.1.1(v) asks of apps with Sign in with Apple.
///
/// - In the browser, Apple's code exchange at `/callback` answers a refresh token.
/// - A native app sends Apple's `authorizationCode` with its ID token
///   (`apple_authorization_code`, a Latchkey addition); the server trades it at
///   `<LATCHKEY_EXTERNAL_APPLE_API_URL>/auth/token` (Apple's "Generate and validate tokens").
///
/// Both need the Sign in with Apple key (``AppleClientSecret``): without it nothing is kept
/// and the server warns at start. The token is sealed (``SecretSealer``, bound to the
/// identity), never answered and never logged. At deletion each kept token is revoked once at
/// `<URL>/auth/revoke` (Apple's "Revoke tokens"); a refusal or an unreachable Apple is
/// logged and audited, never retried (the account, and with it the token, is gone), and never
/// stops the deletion.
struct AppleTokens: Sendable {
    static let provider = "apple"

    let settings: ExternalProviderSettings
    let http: any ProviderHTTP
    let clock: any ServerClock
    let store: any AuthStore
    let sealer: SecretSealer
    let logger: Logger

    /// What became of one kept token at deletion.
    enum Revocation: Sendable, Equatable {
        case revoked
        /// Not revoked: why, naming no token.
        case failed(String)
    }

    /// The client-secret maker, when the Apple key is configured and readable.
    private var secretMaker: AppleClientSecret? { try? settings.appleClientSecret() }

    private func endpoint(_ path: String) -> URL? {
        var base = settings.appleAPIURL
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + path)
    }

    /// Trades a native app's authorization `code`, issued to the client `clientID` (the app's
    /// bundle ID), for a refresh token and keeps it for the identity. Never throws: a sign-in
    /// does not fail because Apple's token endpoint did; the failure is logged.
    func exchangeAndKeep(code: String, clientID: String, userID: UUID, providerID: String) async {
        guard let maker = secretMaker else {
            logger.notice("Apple authorization code not exchanged: the Sign in with Apple key is not configured")
            return
        }
        guard let url = endpoint("/auth/token") else { return }
        do {
            let secret = try maker.make(clientID: clientID, now: clock.now())
            let request = ProviderRequest.form(
                url, [("client_id", clientID), ("client_secret", secret), ("code", code), ("grant_type", "authorization_code")])
            let response = try await http.send(request)
            let answer = try? JSONDecoder().decode(ProviderTokenResponse.self, from: response.body)
            guard response.status == 200, let refreshToken = answer?.refresh_token, !refreshToken.isEmpty else {
                logger.warning(
                    "Apple refused the authorization code; its tokens cannot be revoked at account deletion",
                    metadata: [
                        "user_id": "\(userID)", "status": "\(response.status)",
                        "error": "\(answer?.error.map { String($0.prefix(64)) } ?? "none")",
                    ])
                return
            }
            await keep(refreshToken: refreshToken, clientID: clientID, userID: userID, providerID: providerID)
        } catch {
            logger.warning(
                "Apple authorization code not exchanged", metadata: ["user_id": "\(userID)", "error": "\(String(describing: error))"])
        }
    }

    /// Keeps `refreshToken`, issued to `clientID`, for the user's Apple identity `providerID`
    /// (replacing the one kept before), when the Apple key is configured to revoke it later.
    func keep(refreshToken: String, clientID: String, userID: UUID, providerID: String) async {
        guard secretMaker != nil else { return }
        do {
            let sealed = try sealer.seal(Array(refreshToken.utf8), binding: Self.binding(providerID))
            try await store.keepProviderRefreshToken(
                ProviderRefreshTokenRecord(
                    userID: userID, provider: Self.provider, providerID: providerID, clientID: clientID, sealedToken: sealed,
                    createdAt: clock.now()))
        } catch {
            logger.warning("Apple refresh token not kept", metadata: ["user_id": "\(userID)", "error": "\(type(of: error))"])
        }
    }

    /// Revokes `token` at Apple; never throws.
    func revoke(_ token: ProviderRefreshTokenRecord) async -> Revocation {
        guard let maker = secretMaker else { return .failed("the Sign in with Apple key is not configured") }
        guard let refreshToken = sealer.open(token.sealedToken, binding: Self.binding(token.providerID)).map({ String(decoding: $0, as: UTF8.self) })
        else { return .failed("the kept token does not decrypt (another server secret?)") }
        guard let url = endpoint("/auth/revoke") else { return .failed("LATCHKEY_EXTERNAL_APPLE_API_URL is not a URL") }
        do {
            let secret = try maker.make(clientID: token.clientID, now: clock.now())
            let response = try await http.send(
                .form(
                    url,
                    [
                        ("client_id", token.clientID), ("client_secret", secret), ("token", refreshToken),
                        ("token_type_hint", "refresh_token"),
                    ]))
            guard response.status == 200 else {
                let answer = try? JSONDecoder().decode(ProviderTokenResponse.self, from: response.body)
                return .failed("Apple answered \(response.status) \(answer?.error.map { String($0.prefix(64)) } ?? "")")
            }
            return .revoked
        } catch {
            return .failed(String(describing: error))
        }
    }

    /// The sealed token's associated data: the identity it belongs to.
    static func binding(_ providerID: String) -> String { "\(provider):\(providerID)" }
}
