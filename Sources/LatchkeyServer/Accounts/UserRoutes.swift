import Foundation
import Hummingbird
import LatchkeyWire

/// `GET/PUT /user` (the signed-in user), `DELETE /user` (with `--allow-self-deletion`),
/// `GET /reauthenticate` and `GET/PUT /profiles/{id}`
/// (public profiles): every route here is for a signed-in user.
struct UserRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        let signedIn = router.group().add(middleware: SignedInUserMiddleware(authentication: service.authentication))
        signedIn.get("/user") { _, context in
            try await service.currentUser.response(try context.signedIn())
        }
        signedIn.put("/user") { request, context in
            let body = try await request.decode(as: UpdateUserBody.self, context: context)
            let redirect = request.uri.queryParameters.get("redirect_to")
            return try await service.userUpdate.update(try context.signedIn(), with: body, redirectTo: redirect, ipAddress: context.clientIP)
        }
        signedIn.delete("/user") { request, context in
            guard let deletion = service.accountDeletion else { throw AccountDeletion.disabled }
            let body = try await request.decode(as: DeleteUserBody.self, context: context)
            try await deletion.delete(try context.signedIn(), nonce: body.nonce, ipAddress: context.clientIP)
            return EmptyResponse()
        }
        signedIn.get("/reauthenticate") { _, context in
            try await service.reauthentication.request(for: try context.signedIn(), ipAddress: context.clientIP)
            return EmptyResponse()
        }
        signedIn.get("/profiles/:id") { _, context in
            try await service.profiles.profile(of: context.userID())
        }
        signedIn.put("/profiles/:id") { request, context in
            let id = try context.userID()
            let body = try await request.decode(as: ProfileUpdateBody.self, context: context)
            return try await service.profiles.update(id, by: try context.signedIn(), with: body, ipAddress: context.clientIP)
        }
    }
}
