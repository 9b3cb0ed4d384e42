import Foundation
import LatchkeyWire

/// GoTrue's send email hook (`send-email`): with it on, every email the server would mail —
/// the links and codes of ``EmailLinks`` and the account-change notices — goes to the hook
/// instead of the mailer, as the user (`GET /user`'s shape) and `email_data`; the hook delivers
/// it. A hook's error is the client's answer (GoTrue's hook errors for a hook that fails).
struct SendEmailHook: Sendable {
    /// GoTrue's `email_data`: every field is sent, empty when the email has none.
    struct EmailData: Sendable, Equatable {
        /// GoTrue's `email_action_type`: `signup`, `invite`, `recovery`, `magiclink`,
        /// `email_change`, `reauthentication` or a notice's kind (`password_changed_notification`…).
        var actionType: String
        /// The six-digit code (for a secure email change, the current address's).
        var token = ""
        /// What `POST /verify` takes as `token_hash` (for a secure email change, the new
        /// address's, as GoTrue pairs them).
        var tokenHash = ""
        var redirectTo = ""
        /// A secure email change's code for the new address.
        var tokenNew = ""
        /// A secure email change's `token_hash` for the current address.
        var tokenHashNew = ""
        var oldEmail = ""
        var oldPhone = ""
        var provider = ""
        var factorType = ""

        /// The wire form, with GoTrue's `site_url`: `siteURL`.
        func json(siteURL: String) -> JSONValue {
            .object([
                "email_action_type": .string(actionType), "token": .string(token), "token_hash": .string(tokenHash),
                "redirect_to": .string(redirectTo), "token_new": .string(tokenNew),
                "token_hash_new": .string(tokenHashNew), "old_email": .string(oldEmail), "old_phone": .string(oldPhone),
                "provider": .string(provider), "factor_type": .string(factorType), "site_url": .string(siteURL),
            ])
        }
    }

    let dispatcher: any HookDispatcher
    /// GoTrue's `site_url`: the server's own URL, where `/verify` is.
    let origin: ServerOrigin

    /// Hands the email described by `data` about `user` to the hook; throws its refusal or
    /// GoTrue's hook error.
    func send(_ data: EmailData, about user: UserRecord) async throws(AuthError) {
        try await dispatcher.call("send-email", user: user, ["email_data": data.json(siteURL: origin.url)])
    }
}
