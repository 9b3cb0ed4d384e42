import Foundation
import Hummingbird
import LatchkeyWire

/// `/factors…`: the signed-in user's multi-factor authentication factors (TOTP, phone, WebAuthn).
struct FactorRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        // GoTrue's order: a signed-in user, not anonymous; challenge and verify also count
        // against the MFA request limit, all before the body is read.
        let factors = router.group("/factors")
            .add(middleware: SignedInUserMiddleware(authentication: service.authentication))
            .add(middleware: NotAnonymousMiddleware())
        let limits = service.shared.limits
        let limited = factors.group().add(middleware: RateLimitMiddleware { try await limits.admitMFARequest(from: $0) })
        factors.post { request, context in
            let body = try await request.decode(as: EnrollFactorBody.self, context: context)
            return try await service.factorEnrollment.enroll(try context.signedIn(), with: body, ipAddress: context.clientIP)
        }
        limited.post(":factor_id/challenge") { request, context in
            let factorID = try context.factorID()
            let body = try await request.decode(as: ChallengeFactorBody.self, context: context)
            return try await service.factorChallenges.challenge(factorID, with: body, by: try context.signedIn(), ipAddress: context.clientIP)
        }
        limited.post(":factor_id/verify") { request, context in
            let factorID = try context.factorID()
            let body = try await request.decode(as: VerifyFactorBody.self, context: context)
            return try await service.factorVerification.verify(factorID, with: body, by: try context.signedIn(), ipAddress: context.clientIP)
        }
        factors.delete(":factor_id") { _, context in
            try await service.factorUnenrollment.unenroll(try context.factorID(), by: try context.signedIn(), ipAddress: context.clientIP)
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
