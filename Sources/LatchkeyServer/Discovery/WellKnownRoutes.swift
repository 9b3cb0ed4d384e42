import Foundation
import Hummingbird
import LatchkeyWire
import NIOCore

/// `GET /.well-known/jwks.json`: the public keys access tokens can be verified with, as GoTrue
/// publishes them.
///
/// Only the EC and RSA keys of ``ServerConfiguration/jwtKeys`` appear, with their `kid`, `alg`,
/// `use: "sig"` and `key_ops: ["verify"]` and without private members; HS256 keys and the
/// legacy secret never do, so a server signing with HS256 answers `{"keys": []}`. Cached by
/// clients and proxies for 10 minutes, as GoTrue says (`Cache-Control: public, max-age=600`).
///
/// `GET /.well-known/apple-app-site-association` (404 unless ``PasskeySettings/appleAppIDs``
/// names apps): `{"webcredentials": {"apps": [...]}}`, the file Apple's servers fetch (over HTTPS, with
/// no redirect) before an iOS app with the associated domain `webcredentials:<this host>` may
/// use passkeys of this relying party.
struct WellKnownRoutes: AuthFeature {
    /// The public keys `GET /.well-known/jwks.json` publishes.
    let publicKeys: [JSONWebKey]
    /// The app IDs `/.well-known/apple-app-site-association` lists as `webcredentials`.
    let appleAppIDs: [String]

    init(_ dependencies: FeatureDependencies) {
        publicKeys = dependencies.signer.publicKeys
        appleAppIDs = dependencies.configuration.passkeys.appleAppIDs
    }

    func register(on router: Router<AuthRequestContext>) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = ByteBuffer(bytes: (try? encoder.encode(KeySet(keys: publicKeys))) ?? Data(#"{"keys":[]}"#.utf8))
        router.get("/.well-known/jwks.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=600"],
                body: .init(byteBuffer: body))
        }
        let appIDs = appleAppIDs
        let association = ByteBuffer(bytes: (try? encoder.encode(AppSiteAssociation(webcredentials: .init(apps: appIDs)))) ?? Data("{}".utf8))
        router.get("/.well-known/apple-app-site-association") { _, _ in
            guard !appIDs.isEmpty else { throw AuthError.notFound }
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
                body: .init(byteBuffer: association))
        }
    }

    struct AppSiteAssociation: Encodable {
        struct Apps: Encodable {
            var apps: [String]
        }
        var webcredentials: Apps
    }

    struct KeySet: Encodable {
        var keys: [JSONWebKey]
    }
}
