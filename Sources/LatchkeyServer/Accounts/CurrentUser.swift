import Foundation
import Hummingbird
import LatchkeyWire

/// `GET /user`: the signed-in user, with their factors and identities as GoTrue lists them (an
/// account that only signs in with its address has no identity rows to read).
///
/// The answer is a function of the user, factor and identity records alone, so the last answer
/// written for each user is kept with the records it was made from, and given again while the
/// records just read are equal to those: a changed user, factor or identity (a new sign-in time,
/// a ban, an enrolment) always makes a new answer. Writing the ~1 KB of JSON was a tenth of the
/// route's CPU time; comparing the records costs a fraction of that.
struct CurrentUser: Sendable {
    /// An answer as written, with what it was written from.
    private struct Answer: Sendable {
        var user: UserRecord
        var factors: [FactorRecord]
        var identities: [IdentityRecord]
        var body: ByteBuffer

        func isMade(from user: UserRecord, factors: [FactorRecord], identities: [IdentityRecord]) -> Bool {
            self.user == user && self.factors == factors && self.identities == identities
        }
    }

    let store: any AuthStore
    private let answers: BoundedCache<UUID, Answer>

    init(store: any AuthStore, rememberedAnswers: Int = 1_024) {
        self.store = store
        answers = BoundedCache(capacity: rememberedAnswers)
    }

    /// The GoTrue user object of the signed-in user, as the route's JSON response.
    func response(_ signedIn: BearerAuthentication.Authenticated) async throws -> Response {
        let user = signedIn.user
        let factors = try await store.factors(userID: user.id)
        let identities = try await store.linkedIdentities(of: user)
        let body: ByteBuffer
        if let answer = answers.value(for: user.id), answer.isMade(from: user, factors: factors, identities: identities) {
            body = answer.body
        } else {
            body = ByteBuffer(bytes: HotPathJSON.encode(UserResponse(user, factors: factors, identities: identities)))
            answers.insert(Answer(user: user, factors: factors, identities: identities, body: body), for: user.id)
        }
        return JSONBody.response(body)
    }
}
