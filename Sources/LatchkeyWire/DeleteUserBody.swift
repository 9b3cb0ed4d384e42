/// `DELETE /user` (Latchkey's server with `--allow-self-deletion`; GoTrue has no such route).
///
/// `nonce` is the code from `GET /reauthenticate`, which the deletion needs unless the account
/// has a verified second factor (then a recently verified `aal2` session) or is anonymous.
public struct DeleteUserBody: Codable, Sendable, Hashable {
    public var nonce: String?

    public init(nonce: String? = nil) {
        self.nonce = nonce
    }
}
