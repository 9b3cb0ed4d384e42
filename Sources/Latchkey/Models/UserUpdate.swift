/// What ``AuthAccount/update(_:)`` changes on the signed-in user; `nil` fields stay as they are.
///
/// ```swift
/// try await manager.account.update(UserUpdate(data: ["display_name": .string("Ada")]))
/// try await manager.account.update(UserUpdate(password: newPassword, nonce: emailedNonce))
/// ```
///
/// Printing or dumping one shows `<redacted>` in place of the password and the nonce.
public struct UserUpdate: Sendable, Hashable {
    /// A new email address; the server mails a confirmation before it takes effect.
    public var email: String?
    /// A new password.
    public var password: String?
    /// Metadata merged into ``User/userMetadata`` key by key; a `.null` value removes a key.
    public var data: [String: JSONValue]?
    /// The code ``AuthAccount/reauthenticate()`` mailed, which a password change needs when the
    /// server requires reauthentication.
    public var nonce: String?

    public init(email: String? = nil, password: String? = nil, data: [String: JSONValue]? = nil, nonce: String? = nil) {
        self.email = email
        self.password = password
        self.data = data
        self.nonce = nonce
    }
}

extension UserUpdate: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "UserUpdate(email: \(email ?? "nil"), password: \(password == nil ? "nil" : "<redacted>"), "
            + "data: \(data.map { "\($0.count) keys" } ?? "nil"), nonce: \(nonce == nil ? "nil" : "<redacted>"))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "email": email as Any, "password": password.map { _ in "<redacted>" } as Any, "data": data as Any,
                "nonce": nonce.map { _ in "<redacted>" } as Any,
            ], displayStyle: .struct)
    }
}
