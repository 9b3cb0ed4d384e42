import Foundation
import Hummingbird

/// `GET /health`, `GET /settings` and `GET /openapi.yaml`: what a client asks before anything else.
struct ServiceRoutes {
    let service: AuthService
    let openAPIDocument: String

    func register(on router: Router<AuthRequestContext>) {
        router.get("/health") { _, _ in
            try JSONBody.response(Health(version: LatchkeyVersion.current, name: "Latchkey", description: "Latchkey is a GoTrue-compatible authentication server"))
        }
        router.get("/settings") { _, _ in
            try JSONBody.response(
                Settings(
                    external: ["email": true, "phone": false, "anonymous_users": false],
                    disable_signup: service.configuration.disableSignup,
                    mailer_autoconfirm: service.configuration.autoconfirm, phone_autoconfirm: false, sms_provider: "",
                    saml_enabled: false, password_min_length: service.configuration.minimumPasswordLength))
        }
        let document = openAPIDocument
        router.get("/openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: .init(string: document)))
        }
    }

    struct Health: Encodable {
        var version: String
        var name: String
        var description: String
    }

    struct Settings: Encodable {
        var external: [String: Bool]
        var disable_signup: Bool
        var mailer_autoconfirm: Bool
        var phone_autoconfirm: Bool
        var sms_provider: String
        var saml_enabled: Bool
        var password_min_length: Int
    }
}

/// The version reported by `/health` and `latchkey --version`.
public enum LatchkeyVersion {
    public static let current = "0.1.0"
}
