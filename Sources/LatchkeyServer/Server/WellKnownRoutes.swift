import Foundation
import Hummingbird
import NIOCore

/// `GET /.well-known/jwks.json`: the public keys access tokens can be verified with, as GoTrue
/// publishes them.
///
/// Only the EC and RSA keys of ``ServerConfiguration/jwtKeys`` appear, with their `kid`, `alg`,
/// `use: "sig"` and `key_ops: ["verify"]` and without private members; HS256 keys and the
/// legacy secret never do, so a server signing with HS256 answers `{"keys": []}`. Cached by
/// clients and proxies for 10 minutes, as GoTrue says (`Cache-Control: public, max-age=600`).
struct WellKnownRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = ByteBuffer(bytes: (try? encoder.encode(KeySet(keys: service.publicKeys))) ?? Data(#"{"keys":[]}"#.utf8))
        router.get("/.well-known/jwks.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=600"],
                body: .init(byteBuffer: body))
        }
    }

    struct KeySet: Encodable {
        var keys: [JSONWebKey]
    }
}
