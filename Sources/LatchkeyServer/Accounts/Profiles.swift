import Foundation
import LatchkeyWire

/// `GET/PUT /profiles/{id}`: public profiles. Anyone signed in reads any profile (display name
/// and avatar only); only the owner writes theirs.
struct Profiles: Sendable {
    let store: any AuthStore
    let clock: any ServerClock

    func profile(of id: UUID) async throws -> ProfileResponse {
        guard let user = try await store.user(id: id) else { throw AuthError.userNotFound }
        return ProfileResponse(user)
    }

    /// Sets the display name (trimmed; empty removes it) and the avatar URL (http or https;
    /// empty removes it) of `signedIn`'s own profile `id`.
    func update(
        _ id: UUID, by signedIn: BearerAuthentication.Authenticated, with body: ProfileUpdateBody, ipAddress: String
    ) async throws -> ProfileResponse {
        guard id == signedIn.user.id else { throw AuthError.insufficientPermissions }
        var user = signedIn.user
        if let name = body.display_name {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard trimmed.count <= 100 else { throw AuthError.validation("display_name must be at most 100 characters") }
            user.userMetadata["display_name"] = trimmed.isEmpty ? nil : .string(trimmed)
        }
        if let avatar = body.avatar_url {
            if avatar.isEmpty {
                user.userMetadata["avatar_url"] = nil
            } else {
                guard avatar.count <= 2048, let url = URL(string: avatar), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                    throw AuthError.validation("avatar_url must be an http or https URL")
                }
                user.userMetadata["avatar_url"] = .string(avatar)
            }
        }
        user.updatedAt = clock.now()
        try await store.updateUser(
            user,
            audit: AuditEntry(
                action: .userModified, actorID: user.id, actorUsername: user.email,
                traits: ["profile": .bool(true)], ipAddress: ipAddress, createdAt: user.updatedAt))
        return ProfileResponse(user)
    }
}
