import Foundation
import Hummingbird
import LatchkeyWire

/// `/factors…`: the signed-in user's multi-factor authentication (TOTP) factors.
struct FactorRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        router.post("/factors") { request, context in
            let signedIn = try await service.authentication.user(bearer: request.bearerToken())
            let body = try await JSONBody.decode(EnrollFactorBody.self, from: request, context: context)
            return try JSONBody.response(try await service.factorEnrollment.enroll(signedIn, with: body, ipAddress: context.clientIP))
        }
        router.post("/factors/:factor_id/challenge") { request, context in
            let signedIn = try await service.authentication.user(bearer: request.bearerToken())
            let factorID = try context.factorID()
            _ = try await JSONBody.decode(ChallengeFactorBody.self, from: request, context: context)
            return try JSONBody.response(try await service.factorChallenges.challenge(factorID, by: signedIn, ipAddress: context.clientIP))
        }
        router.post("/factors/:factor_id/verify") { request, context in
            let signedIn = try await service.authentication.user(bearer: request.bearerToken())
            let factorID = try context.factorID()
            let body = try await JSONBody.decode(VerifyFactorBody.self, from: request, context: context)
            return try JSONBody.response(try await service.factorVerification.verify(factorID, with: body, by: signedIn, ipAddress: context.clientIP))
        }
        router.delete("/factors/:factor_id") { request, context in
            let signedIn = try await service.authentication.user(bearer: request.bearerToken())
            let factorID = try context.factorID()
            return try JSONBody.response(try await service.factorUnenrollment.unenroll(factorID, by: signedIn, ipAddress: context.clientIP))
        }
    }
}

extension AuthRequestContext {
    /// The factor id in the path: 404 `validation_failed` when it is not a UUID, as GoTrue.
    func factorID() throws(AuthError) -> UUID {
        guard let text = parameters.get("factor_id"), let id = UUID(uuidString: text) else { throw .factorIDNotUUID }
        return id
    }
}
