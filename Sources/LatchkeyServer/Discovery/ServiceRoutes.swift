import Foundation
import Hummingbird
import LatchkeyWire

/// `GET /health`, `GET /settings` and `GET /openapi.yaml`: what a client asks before anything else.
struct ServiceRoutes: AuthFeature {
    /// What `GET /settings` answers.
    let settings: SettingsResponse
    /// What `GET /openapi.yaml` answers.
    let openAPIDocument: String

    init(_ dependencies: FeatureDependencies) {
        settings = SettingsResponse(dependencies.configuration)
        openAPIDocument = OpenAPIDocument.text
    }

    func register(on router: Router<AuthRequestContext>) {
        router.get("/health") { _, _ in
            Health(version: LatchkeyVersion.current, name: "Latchkey", description: "Latchkey is a GoTrue-compatible authentication server")
        }
        router.get("/settings") { _, _ in settings }
        let document = openAPIDocument
        router.get("/openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: .init(string: document)))
        }
    }

    struct Health: ResponseEncodable {
        var version: String
        var name: String
        var description: String
    }
}

/// The version reported by `/health` and `latchkey --version`.
public enum LatchkeyVersion {
    public static let current = "0.1.0"
}
