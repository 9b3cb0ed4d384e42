import Crypto
import Foundation
import LatchkeyWire

/// How a Firebase account becomes a Latchkey user:
///
/// - the Firebase UID is the user's id when it is a UUID; otherwise the id is a name-based
///   UUID (version 5) of the UID, the same on every run, and the UID is the subject of a
///   `firebase` identity, so it can still be looked up;
/// - `email` (lowercased) and `emailVerified` (confirmed at `createdAt`), `displayName` and
///   `photoUrl` as `user_metadata.display_name` / `avatar_url`, `createdAt` and
///   `lastSignedInAt`, `disabled` as a ban without end, `customAttributes` (custom claims)
///   as `app_metadata` keys;
/// - the password hash and salt, with the project's ``FirebaseHashConfig``, as a
///   ``FirebaseScryptHash``;
/// - each `providerUserInfo` as an identity at `google`, `apple`, `github`, `facebook` or
///   `twitter` (`google.com` and so on; any other provider id as it is), its `rawId` the subject;
/// - an account with a `phoneNumber` and no `email` (a phone-only one) keeps the number (E.164,
///   confirmed at `createdAt`: Firebase holds only numbers it verified) and signs in with it
///   here (GoTrue's `phone` identity); its `phone` provider entry is that number, not an
///   identity.
package enum FirebaseAccountMapping {
    /// The ban of a disabled account: until the end of year 9999.
    package static let disabledUntil = Date(timeIntervalSince1970: 253_402_300_799)

    /// The namespace of the version-5 UUIDs made from Firebase UIDs.
    static let namespace = UUID(uuidString: "5b0a1c55-6f8e-4c7a-9d0e-6c1f0d7a2e41")!

    /// The user id of a Firebase UID: the UID itself when it is a UUID, else its version-5 UUID.
    package static func userID(forUID uid: String) -> UUID {
        if let id = UUID(uuidString: uid) { return id }
        var bytes = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        bytes += Array(uid.utf8)
        var digest = Array(Insecure.SHA1.hash(data: bytes).prefix(16))
        digest[6] = (digest[6] & 0x0F) | 0x50
        digest[8] = (digest[8] & 0x3F) | 0x80
        return digest.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    /// Latchkey's provider name for a Firebase provider id.
    package static func provider(forFirebase providerID: String) -> String {
        switch providerID {
        case "google.com": "google"
        case "apple.com": "apple"
        case "github.com": "github"
        case "facebook.com": "facebook"
        case "twitter.com": "twitter"
        default: providerID
        }
    }

    /// The account `exported` as Latchkey stores it, or why it cannot be imported.
    package static func account(
        _ exported: FirebaseExportUser, hashConfig: FirebaseHashConfig?, confirmUnverified: Bool, now: Date
    ) throws(ImportRefusal) -> ImportedAccount {
        let uid = exported.localId
        guard !uid.isEmpty, uid.count <= 128 else { throw ImportRefusal("localId is empty or longer than 128 characters") }
        let email: String
        var phone = ""
        if let rawEmail = exported.email, !rawEmail.isEmpty {
            do { email = try InputRules.normalizedEmail(rawEmail) } catch { throw ImportRefusal("the email address is not valid") }
        } else {
            guard let rawPhone = exported.phoneNumber, !rawPhone.isEmpty else { throw ImportRefusal("no email address or phone number") }
            do { phone = try InputRules.normalizedPhone(rawPhone) } catch { throw ImportRefusal("phoneNumber is not E.164") }
            email = ""
        }
        let id = userID(forUID: uid)
        let createdAt = exported.createdAt?.date ?? now

        var passwordHash: String?
        if let hash = exported.passwordHash, !hash.isEmpty {
            guard let hashConfig else { throw ImportRefusal("has a password hash, and no hash config was given") }
            guard let stored = hashConfig.hash(passwordHash: hash, salt: exported.salt ?? "") else {
                throw ImportRefusal("passwordHash or salt is not base64")
            }
            passwordHash = stored.text
        }

        var userMetadata: [String: JSONValue] = [:]
        if let name = exported.displayName, !name.isEmpty { userMetadata["display_name"] = .string(name) }
        if let photo = exported.photoUrl, !photo.isEmpty { userMetadata["avatar_url"] = .string(photo) }

        var appMetadata: [String: JSONValue] = [:]
        if let claims = exported.customAttributes, !claims.isEmpty {
            guard let data = claims.data(using: .utf8), let object = try? JSONDecoder().decode([String: JSONValue].self, from: data) else {
                throw ImportRefusal("customAttributes is not a JSON object")
            }
            appMetadata = object
        }

        var identities: [IdentityRecord] = []
        // Every user's UID as a `firebase` identity: a Firebase ID token (`sub` = the UID) the
        // app still holds signs this user in (``ResolvedProvider``, provider `firebase`).
        let ownData: [String: JSONValue] = phone.isEmpty ? ["email": .string(email)] : ["phone": .string(phone)]
        identities.append(
            IdentityRecord(
                subject: uid, userID: id, provider: "firebase", identityData: ownData.merging(["sub": .string(uid)]) { $1 },
                email: email.isEmpty ? nil : email, lastSignInAt: nil, createdAt: createdAt, updatedAt: createdAt))
        for info in exported.providerUserInfo ?? [] where phone.isEmpty || info.providerId != "phone" {
            guard let subject = info.rawId, !subject.isEmpty else { throw ImportRefusal("a providerUserInfo entry has no rawId") }
            let provider = provider(forFirebase: info.providerId)
            guard !identities.contains(where: { $0.provider == provider && $0.subject == subject }) else { continue }
            var data: [String: JSONValue] = ["sub": .string(subject), "provider_id": .string(subject)]
            let providerEmail = info.email.map { $0.lowercased() }
            if let providerEmail { data["email"] = .string(providerEmail) }
            if let name = info.displayName { data["name"] = .string(name) }
            if let photo = info.photoUrl { data["avatar_url"] = .string(photo) }
            identities.append(
                IdentityRecord(
                    subject: subject, userID: id, provider: provider, identityData: data, email: providerEmail, lastSignInAt: nil,
                    createdAt: createdAt, updatedAt: createdAt))
        }
        let linked = identities.map(\.provider)
        let own = phone.isEmpty ? "email" : "phone"
        appMetadata["provider"] = .string(own)
        appMetadata["providers"] = .array(([own] + linked).map(JSONValue.string))

        let confirmed = phone.isEmpty && (exported.emailVerified == true || confirmUnverified)
        let user = UserRecord(
            id: id, email: email, passwordHash: passwordHash, emailConfirmedAt: confirmed ? createdAt : nil,
            lastSignInAt: exported.lastSignedInAt?.date, bannedUntil: exported.disabled == true ? disabledUntil : nil,
            appMetadata: appMetadata, userMetadata: userMetadata, createdAt: createdAt, updatedAt: now, phone: phone,
            phoneConfirmedAt: phone.isEmpty ? nil : createdAt)
        return ImportedAccount(user: user, identities: identities)
    }
}
