import Foundation
import Hummingbird
import LatchkeyWire

/// `/factors…`: the signed-in user's multi-factor authentication factors (TOTP, phone, WebAuthn),
/// and `/admin/users/{id}/factors…`, an administrator's view of them.
struct FactorRoutes: AuthFeature {
    let authentication: BearerAuthentication
    let limits: RateLimits
    /// `POST /factors`.
    let enrollment: FactorEnrollment
    /// `POST /factors/{id}/challenge`.
    let challenges: FactorChallenges
    /// `POST /factors/{id}/verify`.
    let verification: FactorVerification
    /// `DELETE /factors/{id}`.
    let unenrollment: FactorUnenrollment
    /// `/admin/users/{id}/factors…`.
    let adminFactors: AdminFactors

    init(_ dependencies: FeatureDependencies) {
        let (configuration, shared) = (dependencies.configuration, dependencies.shared)
        let rules = FactorRules(configuration)
        let secrets = dependencies.tokens.factorSecrets
        // Read at each enrollment: with port 0 the origin is known once the server has bound.
        let redirects = dependencies.linkSettings.redirects
        let phone =
            configuration.mfa.phoneVerifyEnabled
            ? dependencies.sms.map {
                PhoneFactorMessages(
                    sender: $0, limits: dependencies.limits, tokens: dependencies.tokens, codeLength: configuration.mfa.phoneCodeLength,
                    template: configuration.mfa.phoneTemplate, logger: dependencies.logger, hook: dependencies.sendSMSHook)
            } : nil
        authentication = dependencies.authentication
        limits = dependencies.limits
        enrollment = FactorEnrollment(
            store: dependencies.store, clock: dependencies.clock, rules: rules, secrets: secrets,
            defaultIssuer: { FactorRules.issuer(siteURL: redirects.siteURL) })
        challenges = FactorChallenges(shared: shared, rules: rules, ceremonies: dependencies.ceremonies, phone: phone)
        verification = FactorVerification(
            shared: shared, rules: rules, secrets: secrets, relyingParty: dependencies.ceremonies.relyingParty, phone: phone,
            attemptHook: (try? configuration.hooks.mfaVerificationAttemptEndpoint())?.map {
                VerificationAttemptHook(dispatcher: dependencies.hookDispatcher($0), kind: .mfa)
            })
        unenrollment = FactorUnenrollment(store: dependencies.store, clock: dependencies.clock, notices: dependencies.notices)
        adminFactors = AdminFactors(store: dependencies.store, clock: dependencies.clock)
    }

    func register(on router: Router<AuthRequestContext>) {
        // GoTrue's order: a signed-in user, not anonymous; challenge and verify also count
        // against the MFA request limit, all before the body is read.
        let factors = router.group("/factors")
            .add(middleware: SignedInUserMiddleware(authentication: authentication))
            .add(middleware: NotAnonymousMiddleware())
            .add(middleware: FirstPartySessionMiddleware())
        let limited = factors.group().add(middleware: RateLimitMiddleware { try await limits.admitMFARequest(from: $0) })
        factors.post { request, context in
            let body = try await request.decode(as: EnrollFactorBody.self, context: context)
            return try await enrollment.enroll(try context.signedIn(), with: body, ipAddress: context.clientIP)
        }
        limited.post(":factor_id/challenge") { request, context in
            let factorID = try context.factorID()
            let body = try await request.decode(as: ChallengeFactorBody.self, context: context)
            return try await challenges.challenge(factorID, with: body, by: try context.signedIn(), ipAddress: context.clientIP)
        }
        limited.post(":factor_id/verify") { request, context in
            let factorID = try context.factorID()
            let body = try await request.decode(as: VerifyFactorBody.self, context: context)
            return try await verification.verify(factorID, with: body, by: try context.signedIn(), ipAddress: context.clientIP)
        }
        factors.delete(":factor_id") { _, context in
            try await unenrollment.unenroll(try context.factorID(), by: try context.signedIn(), ipAddress: context.clientIP)
        }

        let admin = router.group("/admin").add(middleware: AdministratorMiddleware(authentication: authentication))
        admin.get("users/:id/factors") { _, context in
            try await adminFactors.list(userID: context.userID())
        }
        admin.put("users/:id/factors/:factor_id") { request, context in
            let (userID, factorID) = (try context.userID(), try context.factorID())
            let body = try await request.decode(as: AdminUpdateFactorBody.self, context: context)
            return try await adminFactors.update(userID: userID, factorID: factorID, with: body, ipAddress: context.clientIP)
        }
        admin.delete("users/:id/factors/:factor_id") { _, context in
            let (userID, factorID) = (try context.userID(), try context.factorID())
            return try await adminFactors.delete(userID: userID, factorID: factorID, ipAddress: context.clientIP)
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
