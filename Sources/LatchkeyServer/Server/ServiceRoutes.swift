import Foundation
import Hummingbird

/// `GET /health`, `GET /settings` and `GET /openapi.yaml`: what a client asks before anything else.
struct ServiceRoutes {
    let service: AuthService
    let openAPIDocument: String

    func register(on router: Router<AuthRequestContext>) {
        router.get("/health") { _, _ in
            Health(version: LatchkeyVersion.current, name: "Latchkey", description: "Latchkey is a GoTrue-compatible authentication server")
        }
        router.get("/settings") { _, _ in service.settings }
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
