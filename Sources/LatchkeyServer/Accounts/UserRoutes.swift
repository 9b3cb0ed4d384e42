import Foundation
import Hummingbird

/// `GET/PUT /user` (the signed-in user) and `GET/PUT /profiles/{id}` (public profiles).
struct UserRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        router.get("/user") { request, _ in
            try JSONBody.response(try await service.currentUser.user(try await service.authentication.user(bearer: request.bearerToken())))
        }
        router.put("/user") { request, context in
            let signedIn = try await service.authentication.user(bearer: request.bearerToken())
            let body = try await JSONBody.decode(UpdateUserBody.self, from: request, context: context)
            let redirect = request.uri.queryParameters.get("redirect_to")
            return try JSONBody.response(try await service.userUpdate.update(signedIn, with: body, redirectTo: redirect, ipAddress: context.clientIP))
        }
        router.get("/reauthenticate") { request, context in
            let signedIn = try await service.authentication.user(bearer: request.bearerToken())
            try await service.reauthentication.request(for: signedIn, ipAddress: context.clientIP)
            return JSONBody.empty()
        }
        router.get("/profiles/:id") { request, context in
            _ = try await service.authentication.user(bearer: request.bearerToken())
            return try JSONBody.response(try await service.profiles.profile(of: context.userID()))
        }
        router.put("/profiles/:id") { request, context in
            let signedIn = try await service.authentication.user(bearer: request.bearerToken())
            let id = try context.userID()
            let body = try await JSONBody.decode(ProfileUpdateBody.self, from: request, context: context)
            return try JSONBody.response(try await service.profiles.update(id, by: signedIn, with: body, ipAddress: context.clientIP))
        }
    }
}
