import Foundation
import Hummingbird
import NIOCore

/// Reading request bodies and writing JSON responses with GoTrue's error codes for bad input.
enum JSONBody {
    /// Decodes the request body as `T`: malformed JSON is 400 `bad_json`, a body of the wrong
    /// shape is 400 `validation_failed` naming the field, an empty body decodes from `{}`.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw AuthError.requestTooLarge
        }
        let data = Data(buffer.readableBytesView)
        let bytes = data.isEmpty || data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) ? Data("{}".utf8) : data
        // One parse for a well-formed body; a body that does not decode is parsed again only to
        // say why (not JSON, not an object, or a field of the wrong shape).
        do {
            return try JSONDecoder().decode(T.self, from: bytes)
        } catch {
            guard let parsed = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed]) else {
                throw AuthError.badJSON
            }
            guard parsed is [String: Any] else {
                throw AuthError.validation("Request body must be a JSON object")
            }
            switch error {
            case DecodingError.typeMismatch(_, let context):
                throw AuthError.validation("Invalid type for \(fieldName(context.codingPath))")
            case DecodingError.keyNotFound(let key, _):
                throw AuthError.validation("Missing \(key.stringValue)")
            case DecodingError.valueNotFound(_, let context):
                throw AuthError.validation("Missing value for \(fieldName(context.codingPath))")
            default:
                throw AuthError.validation("Invalid request body")
            }
        }
    }

    static func fieldName(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    /// A JSON response: the hot paths' answers (users and sessions) written by ``HotPathJSON``,
    /// anything else by `JSONEncoder`, to the same bytes.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        let body: ByteBuffer
        if let answer = value as? any HotPathJSONEncodable {
            body = ByteBuffer(bytes: HotPathJSON.encode(answer))
        } else {
            body = ByteBuffer(bytes: try JSONEncoder().encode(value))
        }
        return response(body, status: status, headers: headers)
    }

    /// A response whose body is `body`, JSON already written.
    static func response(_ body: ByteBuffer, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var allHeaders = headers
        allHeaders[.contentType] = "application/json"
        return Response(status: status, headers: allHeaders, body: .init(byteBuffer: body))
    }

    /// `{}` with status 200.
    static func empty() -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
    }
}
