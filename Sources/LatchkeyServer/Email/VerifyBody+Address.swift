import HTTPTypes
import LatchkeyWire

extension VerifyBody {
    /// Checks the address of a code redeemed by `POST /verify`, before any code is looked up
    /// and whether or not phone or email sign-in is on, as GoTrue's `VerifyParams.Validate`: a
    /// code with a phone number (and no email) needs an E.164 number (400 `validation_failed`
    /// "Invalid phone number format (E.164 required)"); a code with an email address (and no
    /// number) a well-formed address (422 `validation_failed` "Invalid email format"). Other
    /// shapes are left to the verifications, which refuse them with GoTrue's words.
    func validateCodeAddress() throws(AuthError) {
        // Without a type, or with a token hash, the verifications answer first (as GoTrue).
        guard !(type ?? "").isEmpty, let token, !token.isEmpty, (token_hash ?? "").isEmpty else { return }
        let (phone, email) = (phone ?? "", email ?? "")
        if !phone.isEmpty, email.isEmpty {
            _ = try InputRules.normalizedPhone(phone)
        } else if !email.isEmpty, phone.isEmpty {
            do {
                _ = try InputRules.normalizedEmail(email)
            } catch {
                throw AuthError(.unprocessableContent, "validation_failed", "Invalid email format")
            }
        }
    }
}
