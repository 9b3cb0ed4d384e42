import Foundation

/// The OpenAPI description of what this server serves, shipped as a resource and served at
/// `GET /openapi.yaml`.
enum OpenAPIDocument {
    static let text: String = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
            let data = try? Data(contentsOf: url)
        else { return "openapi: 3.0.3\ninfo:\n  title: Latchkey\n  version: unavailable\npaths: {}\n" }
        return String(decoding: data, as: UTF8.self)
    }()
}
