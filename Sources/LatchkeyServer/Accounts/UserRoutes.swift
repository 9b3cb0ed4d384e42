import Foundation
import Hummingbird
import LatchkeyWire

/// `GET/PUT /user` (the signed-in user), `DELETE /user` (with `--allow-self-deletion`),
/// `GET /reauthenticate` and `GET/PUT /profiles/{id}`
/// (public profiles): every route here is for a signed-in user.
struct UserRoutes: AuthFeature {
    let authentication: BearerAuthentication
    /// `GET /user`.
    let currentUser: CurrentUser
    /// `PUT /user`.
    let userUpdate: UserUpdate
    /// `DELETE /user`; `nil` unless `--allow-self-deletion`.
    let accountDeletion: AccountDeletion?
    /// `GET /reauthenticate`.
    let reauthentication: Reauthentication
    /// `GET/PUT /profiles/{id}`.
    let profiles: Profiles

    init(_ dependencies: FeatureDependencies) {
        let configuration = dependencies.configuration
        authentication = dependencies.authentication
        currentUser = CurrentUser(store: dependencies.store)
        userUpdate = UserUpdate(
            shared: dependencies.shared, emailLinks: dependencies.emailLinks, reauthentication: dependencies.reauthentication,
            autoconfirm: configuration.autoconfirm, requireCurrentPassword: configuration.requireCurrentPassword,
            phoneCodes: dependencies.phoneCodes)
        accountDeletion =
            configuration.allowSelfDeletion
            ? AccountDeletion(
                shared: dependencies.shared, reauthentication: dependencies.reauthentication, mailer: dependencies.mailer,
                siteURL: dependencies.linkSettings.redirects.siteURL, appleTokens: dependencies.appleTokens) : nil
        reauthentication = dependencies.reauthentication
        profiles = Profiles(store: dependencies.store, clock: dependencies.clock)
    }

    func register(on router: Router<AuthRequestContext>) {
        let signedIn = router.group().add(middleware: SignedInUserMiddleware(authentication: authentication))
        signedIn.get("/user") { _, context in
            try await currentUser.response(try context.signedIn())
        }
        // Changing the account needs the user's own sign-in, not an app's token.
        let account = signedIn.group().add(middleware: FirstPartySessionMiddleware())
        account.put("/user") { request, context in
            let body = try await request.decode(as: UpdateUserBody.self, context: context)
            let redirect = request.uri.queryParameters.get("redirect_to")
            return try await userUpdate.update(try context.signedIn(), with: body, redirectTo: redirect, ipAddress: context.clientIP)
        }
        account.delete("/user") { request, context in
            guard let deletion = accountDeletion else { throw AccountDeletion.disabled }
            let body = try await request.decode(as: DeleteUserBody.self, context: context)
            try await deletion.delete(try context.signedIn(), nonce: body.nonce, ipAddress: context.clientIP)
            return EmptyResponse()
        }
        account.get("/reauthenticate") { _, context in
            try await reauthentication.request(for: try context.signedIn(), ipAddress: context.clientIP)
            return EmptyResponse()
        }
        signedIn.get("/profiles/:id") { _, context in
            try await profiles.profile(of: context.userID())
        }
        account.put("/profiles/:id") { request, context in
            let id = try context.userID()
            let body = try await request.decode(as: ProfileUpdateBody.self, context: context)
            return try await profiles.update(id, by: try context.signedIn(), with: body, ipAddress: context.clientIP)
        }
    }
}
