import Foundation
import Hummingbird

/// What routes read from a request besides its body: the bearer token and path ids.
extension Request {
    /// The token of `Authorization: Bearer <token>` (scheme case-insensitive, surrounding spaces
    /// ignored): 401 `no_authorization` when absent or of another scheme, as GoTrue.
    func bearerToken() throws(AuthError) -> String {
        guard let header = headers[.authorization], !header.isEmpty else { throw .noAuthorization }
        let utf8 = header.utf8
        guard utf8.count > 7, let space = utf8.firstIndex(of: UInt8(ascii: " ")),
            header[..<space].caseInsensitiveEquals("bearer")
        else { throw .noAuthorization }
        // By bytes: a token is hundreds of characters, and counting them as Characters costs
        // more than the rest of the check.
        let blank = UInt8(ascii: " ")
        guard let start = utf8[utf8.index(after: space)...].firstIndex(where: { $0 != blank }),
            let last = utf8[start...].lastIndex(where: { $0 != blank })
        else { throw .noAuthorization }
        return String(header[start..<utf8.index(after: last)])
    }
}

extension AuthRequestContext {
    /// The user id in the path parameter `name`: 404 `user_not_found` when it is not a UUID.
    func userID(_ name: String = "id") throws(AuthError) -> UUID {
        guard let text = parameters.get(name), let id = UUID(uuidString: text) else { throw .userNotFound }
        return id
    }
}

extension Substring {
    /// ASCII case-insensitive comparison, without allocating lower-cased copies.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        return zip(utf8, other.utf8).allSatisfy { a, b in a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A) }
    }
}
