import Foundation
import LatchkeyWire

/// GoTrue's send SMS hook (`send-sms`): with it on, every SMS code — sign-up and sign-in, a
/// phone change, a phone factor's challenge (`sms_type` `mfa`) — goes to the hook instead of the
/// SMS provider: the user as `GET /user` shows it, and `sms` with the `otp` and the `phone`.
/// A hook's error is the client's answer (GoTrue's hook errors for a hook that fails).
struct SendSMSHook: Sendable {
    let dispatcher: any HookDispatcher

    /// Hands `code` for `phone` of `user` to the hook (`type`: GoTrue's `sms_type`, absent for
    /// sign-in codes); throws its refusal or GoTrue's hook error.
    func send(code: String, phone: String, type: String? = nil, to user: UserRecord) async throws(AuthError) {
        var sms: [String: JSONValue] = ["otp": .string(code), "phone": .string(phone)]
        if let type { sms["sms_type"] = .string(type) }
        try await dispatcher.call("send-sms", user: user, ["sms": .object(sms)])
    }
}
