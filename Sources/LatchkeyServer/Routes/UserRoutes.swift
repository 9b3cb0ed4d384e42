import Foundation
import Hummingbird

/// `GET/PUT /user` (the signed-in user) and `GET/PUT /profiles/{id}` (public profiles).
struct UserRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        router.get("/user") { request, _ in
            try JSONBody.response(UserResponse(try await service.authentication.user(bearer: request.bearerToken()).user))
        }
        router.put("/user") { request, context in
            let signedIn = try await service.authentication.user(bearer: request.bearerToken())
            let body = try await JSONBody.decode(UpdateUserBody.self, from: request, context: context)
            let response = try await answeringMailFailure(.emailChange, logger: context.logger) {
                try await service.userUpdate.update(signedIn, with: body, ipAddress: context.clientIP)
            }
            return try JSONBody.response(response)
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
