/// Printing, interpolating or dumping a request body never shows a password or a token: the
/// bodies that carry one describe themselves with `<redacted>` in its place.
private let redacted = "<redacted>"

private func describe(_ type: String, _ fields: KeyValuePairs<String, String?>) -> String {
    type + "(" + fields.map { "\($0.key): \($0.value ?? "nil")" }.joined(separator: ", ") + ")"
}

private func mask(_ secret: String?) -> String? { secret.map { _ in redacted } }

extension SignUpBody: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { describe("SignUpBody", ["email": email, "password": mask(password)]) }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["email": email as Any, "phone": phone as Any, "password": mask(password) as Any]) }
}

extension PasswordGrantBody: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { describe("PasswordGrantBody", ["email": email, "phone": phone, "password": mask(password)]) }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["email": email as Any, "phone": phone as Any, "password": mask(password) as Any]) }
}

extension RefreshGrantBody: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { describe("RefreshGrantBody", ["refresh_token": mask(refresh_token)]) }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["refresh_token": mask(refresh_token) as Any]) }
}

extension UpdateUserBody: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { describe("UpdateUserBody", ["email": email, "password": mask(password), "nonce": mask(nonce)]) }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["email": email as Any, "password": mask(password) as Any, "nonce": mask(nonce) as Any])
    }
}

extension PKCEGrantBody: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { describe("PKCEGrantBody", ["auth_code": mask(auth_code), "code_verifier": mask(code_verifier)]) }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["auth_code": mask(auth_code) as Any, "code_verifier": mask(code_verifier) as Any]) }
}

extension GenerateLinkBody: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { describe("GenerateLinkBody", ["type": type, "email": email, "password": mask(password)]) }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["type": type as Any, "email": email as Any, "password": mask(password) as Any]) }
}

extension VerifyBody: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        describe("VerifyBody", ["type": type, "email": email, "token": mask(token), "token_hash": mask(token_hash)])
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["type": type as Any, "email": email as Any, "token": mask(token) as Any, "token_hash": mask(token_hash) as Any])
    }
}

extension AdminUserBody: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        describe("AdminUserBody", ["id": id, "email": email, "password": mask(password), "password_hash": mask(password_hash)])
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["id": id as Any, "email": email as Any, "password": mask(password) as Any, "password_hash": mask(password_hash) as Any])
    }
}
