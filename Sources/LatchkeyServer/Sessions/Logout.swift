import Foundation
import LatchkeyWire

/// `POST /logout`: ends the signed-in user's sessions — all of them, this one, or all others.
struct Logout: Sendable {
    /// Which sessions end.
    enum Scope: String, Sendable {
        /// Every session of the user (the default).
        case global
        /// Only the session of the presented token.
        case local
        /// Every session but the presented token's.
        case others

        init(parsing raw: String?) throws(AuthError) {
            guard let raw else {
                self = .global
                return
            }
            guard let scope = Scope(rawValue: raw) else {
                throw AuthError.validation("Unsupported logout scope \"\(raw.prefix(40))\": use global, local or others")
            }
            self = scope
        }
    }

    let store: any AuthStore
    let clock: any ServerClock

    /// Ends `signedIn`'s sessions in `scope`; their refresh tokens then answer `refresh_token_not_found`, as GoTrue.
    func logOut(_ signedIn: BearerAuthentication.Authenticated, scope: Scope, ipAddress: String) async throws {
        let user = signedIn.user
        let audit = AuditEntry(
            action: .logout, actorID: user.id, actorUsername: user.email, traits: ["scope": .string(scope.rawValue)],
            ipAddress: ipAddress, createdAt: clock.now())
        switch scope {
        case .global: try await store.endSessions(userID: user.id, except: nil, only: nil, audit: audit)
        case .local: try await store.endSessions(userID: user.id, except: nil, only: signedIn.session.id, audit: audit)
        case .others: try await store.endSessions(userID: user.id, except: signedIn.session.id, only: nil, audit: audit)
        }
    }
}
