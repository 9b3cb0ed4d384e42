import Foundation
import Hummingbird
import LatchkeyWire

/// Reads request bodies as GoTrue does: malformed JSON is 400 `bad_json`, a body of the wrong
/// shape is 400 `validation_failed` naming the field, an empty body reads as `{}`
/// (``JSONBody/decode(_:from:context:)``). The request context's `requestDecoder`.
struct GoTrueRequestDecoder: RequestDecoder {
    func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        try await JSONBody.decode(type, from: request, context: context)
    }
}

/// Writes a handler's answer as a JSON response. The request context's `responseEncoder`.
struct GoTrueResponseEncoder: ResponseEncoder {
    func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        try JSONBody.response(value)
    }
}

/// `{}`: the answer of a route that has nothing to say but success.
struct EmptyResponse: ResponseEncodable {}

// The wire answers a handler returns as they are.
extension SessionResponse: ResponseEncodable {}
extension UserResponse: ResponseEncodable {}
extension SettingsResponse: ResponseEncodable {}
extension ProfileResponse: ResponseEncodable {}
extension UserListResponse: ResponseEncodable {}
extension FactorResponse: ResponseEncodable {}
extension ChallengeFactorResponse: ResponseEncodable {}
extension EnrollFactorResponse: ResponseEncodable {}
extension UnenrollFactorResponse: ResponseEncodable {}
extension GenerateLinkResponse: ResponseEncodable {}
extension AuditEntryResponse: ResponseEncodable {}
extension SignUp.Outcome: ResponseEncodable {}
extension EmailVerification.Outcome: ResponseEncodable {}
extension PasskeyResponse: ResponseEncodable {}
extension PasskeyOptionsResponse: ResponseEncodable {}
