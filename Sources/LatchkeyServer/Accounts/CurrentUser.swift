import Foundation
import LatchkeyWire

/// `GET /user`: the signed-in user, with their factors and identities as GoTrue lists them (an
/// account that only signs in with its address has no identity rows to read).
struct CurrentUser: Sendable {
    let store: any AuthStore

    func user(_ signedIn: BearerAuthentication.Authenticated) async throws -> UserResponse {
        UserResponse(
            signedIn.user, factors: try await store.factors(userID: signedIn.user.id), identities: try await store.linkedIdentities(of: signedIn.user)
        )
    }
}
