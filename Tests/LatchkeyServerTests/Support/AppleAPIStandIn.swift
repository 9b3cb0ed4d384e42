import Crypto
import Foundation
import Hummingbird
import LatchkeyTesting
import LatchkeyWire
import NIOConcurrencyHelpers

/// A local stand-in for Sign in with Apple's REST API: `POST /auth/token` trades an
/// authorization code it was told of for a refresh token, `POST /auth/revoke` records the
/// tokens revoked. Both take the form Apple documents and check the client secret as Apple
/// would: an ES256 JWT signed by the team's key, `iss` the team ID, `sub` the form's
/// `client_id`, `aud` `https://appleid.apple.com`, not expired; anything else is
/// `400 invalid_client`.
struct AppleAPIStandIn: Sendable {
    struct Revocation: Sendable, Equatable {
        var clientID: String
        var token: String
        var tokenTypeHint: String?
    }

    let baseURL: String
    let teamID: String
    private let codes: NIOLockedValueBox<[String: String]>
    private let revocations: NIOLockedValueBox<[Revocation]>
    private let refusedSecrets: NIOLockedValueBox<Int>
    private let failing: NIOLockedValueBox<Bool>
    private let server: LoopbackHTTPServer

    /// The revocations received, in order.
    var revoked: [Revocation] { revocations.withLockedValue { $0 } }
    /// How many requests carried a client secret Apple would refuse.
    var refusedClientSecrets: Int { refusedSecrets.withLockedValue { $0 } }
    /// Makes `/auth/revoke` answer 503, as an unreachable or failing Apple.
    func setFailing(_ on: Bool) { failing.withLockedValue { $0 = on } }
    /// Makes `code` a valid authorization code, traded once for `refreshToken`.
    func issue(code: String, refreshToken: String) { codes.withLockedValue { $0[code] = refreshToken } }
    func stop() async { try? await server.stop() }

    static func with<T>(teamID: String, key: P256.Signing.PublicKey, _ body: (AppleAPIStandIn) async throws -> T) async throws -> T {
        let standIn = try await start(teamID: teamID, key: key)
        do {
            let result = try await body(standIn)
            await standIn.stop()
            return result
        } catch {
            await standIn.stop()
            throw error
        }
    }

    static func start(teamID: String, key: P256.Signing.PublicKey) async throws -> AppleAPIStandIn {
        let codes = NIOLockedValueBox<[String: String]>([:])
        let revocations = NIOLockedValueBox<[Revocation]>([])
        let refused = NIOLockedValueBox(0)
        let failing = NIOLockedValueBox(false)
        let router = Router()
        router.post("/auth/token") { request, _ -> Response in
            let form = formFields(String(buffer: try await request.body.collect(upTo: 1 << 16)))
            guard validSecret(form, teamID: teamID, key: key) else {
                refused.withLockedValue { $0 += 1 }
                return json(.badRequest, ["error": "invalid_client"])
            }
            guard form["grant_type"] == "authorization_code", let code = form["code"],
                let refreshToken = codes.withLockedValue({ $0.removeValue(forKey: code) })
            else { return json(.badRequest, ["error": "invalid_grant"]) }
            return json(
                .ok,
                [
                    "access_token": "apple-access-\(UUID().uuidString)", "token_type": "Bearer", "expires_in": "3600",
                    "refresh_token": refreshToken, "id_token": "not-read",
                ])
        }
        router.post("/auth/revoke") { request, _ -> Response in
            let form = formFields(String(buffer: try await request.body.collect(upTo: 1 << 16)))
            guard validSecret(form, teamID: teamID, key: key) else {
                refused.withLockedValue { $0 += 1 }
                return json(.badRequest, ["error": "invalid_client"])
            }
            if failing.withLockedValue({ $0 }) { return json(.serviceUnavailable, ["error": "temporarily_unavailable"]) }
            guard let token = form["token"], !token.isEmpty else { return json(.badRequest, ["error": "invalid_request"]) }
            revocations.withLockedValue {
                $0.append(Revocation(clientID: form["client_id"] ?? "", token: token, tokenTypeHint: form["token_type_hint"]))
            }
            return Response(status: .ok)
        }
        let server = try await LoopbackHTTPServer.start(router, label: "apple-api-stand-in")
        return AppleAPIStandIn(
            baseURL: server.baseURL, teamID: teamID, codes: codes, revocations: revocations, refusedSecrets: refused, failing: failing,
            server: server)
    }

    /// The client secret checks Apple makes, done without Latchkey's code.
    private static func validSecret(_ form: [String: String], teamID: String, key: P256.Signing.PublicKey) -> Bool {
        guard let clientID = form["client_id"], !clientID.isEmpty, let secret = form["client_secret"] else { return false }
        let parts = secret.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
            let signatureData = Base64URL.decode(parts[2]),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any],
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData)
        else { return false }
        guard header["alg"] as? String == "ES256", key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)) else {
            return false
        }
        // The server's clock is a manual one near the real time; Apple allows six months.
        let now = Date().timeIntervalSince1970
        guard let exp = claims["exp"] as? Int, let iat = claims["iat"] as? Int, exp > iat, Double(exp) > now - 86_400 else { return false }
        return claims["iss"] as? String == teamID && claims["sub"] as? String == clientID && claims["aud"] as? String == "https://appleid.apple.com"
    }

    private static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let name = parts.first, fields[name] == nil { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }

    private static func json(_ status: HTTPResponse.Status, _ object: [String: String]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
