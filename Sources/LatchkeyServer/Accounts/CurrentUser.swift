import Foundation
import LatchkeyWire

/// `GET /user`: the signed-in user, with their factors as GoTrue lists them.
struct CurrentUser: Sendable {
    let store: any AuthStore

    func user(_ signedIn: BearerAuthentication.Authenticated) async throws -> UserResponse {
        UserResponse(signedIn.user, factors: try await store.factors(userID: signedIn.user.id))
    }
}
