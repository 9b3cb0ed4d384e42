import Foundation
import Hummingbird
import LatchkeyWire

/// `DELETE /user/identities/{identity_id}`: a signed-in user unlinks an identity (with
/// `GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`, as in GoTrue).
struct IdentityRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        let signedIn = router.group("/user/identities").add(middleware: SignedInUserMiddleware(authentication: service.authentication))
            .add(middleware: ManualLinkingMiddleware(enabled: service.providers.settings.manualLinkingEnabled))
        signedIn.delete("/:identity_id") { _, context in
            guard let text = context.parameters.get("identity_id"), let id = UUID(uuidString: text) else {
                throw AuthError(.notFound, "validation_failed", "identity_id must be an UUID")
            }
            try await service.providers.unlink(identityID: id, from: try context.signedIn().user.id, ipAddress: context.clientIP)
            return EmptyResponse()
        }
    }
}
