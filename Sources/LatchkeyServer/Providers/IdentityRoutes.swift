import Foundation
import Hummingbird
import LatchkeyWire

/// `DELETE /user/identities/{identity_id}`: a signed-in user unlinks an identity (with
/// `GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`, as in GoTrue).
struct IdentityRoutes: AuthFeature {
    let authentication: BearerAuthentication
    let providers: ProviderSignIn

    init(_ dependencies: FeatureDependencies) {
        authentication = dependencies.authentication
        providers = dependencies.providers
    }

    func register(on router: Router<AuthRequestContext>) {
        let signedIn = router.group("/user/identities").add(middleware: SignedInUserMiddleware(authentication: authentication))
            .add(middleware: FirstPartySessionMiddleware())
            .add(middleware: FeatureSwitchMiddleware(enabled: providers.settings.manualLinkingEnabled, refusal: .manualLinkingDisabled))
        signedIn.delete("/:identity_id") { _, context in
            guard let text = context.parameters.get("identity_id"), let id = UUID(uuidString: text) else {
                throw AuthError(.notFound, "validation_failed", "identity_id must be an UUID")
            }
            try await providers.unlink(identityID: id, from: try context.signedIn().user.id, ipAddress: context.clientIP)
            return EmptyResponse()
        }
    }
}
