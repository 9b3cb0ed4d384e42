import Foundation
import Hummingbird
import LatchkeyWire

/// `/passkeys…` (off unless passkeys are enabled: 404 `passkey_disabled` before anything else)
/// and `/admin/users/{id}/passkeys…`, as GoTrue routes them.
struct PasskeyRoutes: AuthFeature {
    let authentication: BearerAuthentication
    /// Whether the `/passkeys` routes answer.
    let enabled: Bool
    /// Whether the relying party can run passkey ceremonies (see ``ServerConfiguration/warnings()``).
    let webAuthnUsable: Bool
    /// `POST /passkeys/registration/…`.
    let registration: PasskeyRegistration
    /// `POST /passkeys/authentication/…`.
    let signIn: PasskeySignIn
    /// `GET`, `PATCH`, `DELETE /passkeys…` and `/admin/users/{id}/passkeys…`.
    let management: PasskeyManagement

    init(_ dependencies: FeatureDependencies) {
        let ceremonies = dependencies.ceremonies
        authentication = dependencies.authentication
        enabled = dependencies.configuration.passkeys.enabled
        webAuthnUsable = dependencies.configuration.webAuthnUsable
        registration = PasskeyRegistration(ceremonies: ceremonies)
        signIn = PasskeySignIn(ceremonies: ceremonies, limits: dependencies.limits, sessions: dependencies.sessions)
        management = PasskeyManagement(ceremonies: ceremonies)
    }

    func register(on router: Router<AuthRequestContext>) {
        let passkeys = router.group("/passkeys").add(middleware: FeatureSwitchMiddleware(enabled: enabled, refusal: .passkeysDisabled))
        passkeys.post("authentication/options") { request, context in
            try requireWebAuthnUsable()
            _ = try await request.decode(as: JSONValue.self, context: context)
            return try await signIn.options(ipAddress: context.clientIP)
        }
        passkeys.post("authentication/verify") { request, context in
            try requireWebAuthnUsable()
            let body = try await request.decode(as: PasskeyVerifyWire.self, context: context)
            return try await signIn.verify(body, ipAddress: context.clientIP)
        }
        let signedIn = passkeys.group().add(middleware: SignedInUserMiddleware(authentication: authentication))
            .add(middleware: FirstPartySessionMiddleware())
        signedIn.post("registration/options") { request, context in
            try requireWebAuthnUsable()
            _ = try await request.decode(as: JSONValue.self, context: context)
            return try await registration.options(for: try context.signedIn())
        }
        signedIn.post("registration/verify") { request, context in
            try requireWebAuthnUsable()
            let body = try await request.decode(as: PasskeyVerifyWire.self, context: context)
            return try await registration.verify(body, by: try context.signedIn(), ipAddress: context.clientIP)
        }
        signedIn.get { _, context in
            try await JSONBody.response(management.list(of: try context.signedIn().user.id))
        }
        signedIn.patch(":passkey_id") { request, context in
            let id = try context.passkeyID()
            let body = try await request.decode(as: PasskeyUpdateBody.self, context: context)
            return try await management.rename(id, with: body, by: try context.signedIn(), ipAddress: context.clientIP)
        }
        signedIn.delete(":passkey_id") { _, context in
            try await management.delete(try context.passkeyID(), by: try context.signedIn(), ipAddress: context.clientIP)
            return Response(status: .noContent)
        }

        let admin = router.group("/admin/users").add(middleware: AdministratorMiddleware(authentication: authentication))
        admin.get(":id/passkeys") { _, context in
            try await JSONBody.response(management.adminList(userID: try context.userID()))
        }
        admin.delete(":id/passkeys/:passkey_id") { _, context in
            let (userID, passkeyID) = (try context.userID(), try context.passkeyID())
            try await management.adminDelete(passkeyID, of: userID, ipAddress: context.clientIP)
            return Response(status: .noContent)
        }
    }
}

extension PasskeyRoutes {
    /// Refuses a passkey ceremony while the relying party is not usable: 500 "Failed to
    /// initialize WebAuthn", as GoTrue answers (the server warned at start).
    func requireWebAuthnUsable() throws(AuthError) {
        guard webAuthnUsable else { throw AuthError(.internalServerError, "unexpected_failure", "Failed to initialize WebAuthn") }
    }
}

extension AuthRequestContext {
    /// The passkey id in the path: 404 "Passkey not found" when it is not a UUID, as GoTrue.
    func passkeyID() throws(AuthError) -> UUID {
        guard let text = parameters.get("passkey_id"), let id = UUID(uuidString: text) else { throw .passkeyNotFound }
        return id
    }
}
