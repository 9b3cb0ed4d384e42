import Foundation
import HTTPTypes

/// A hook's own refusal, `{"error": {"http_code": 403, "message": "…"}}`, as GoTrue reads it:
/// an error with a message becomes the client's error with that status (500 without one).
enum HookError {
    private struct Answer: Decodable {
        struct Body: Decodable {
            var httpCode: Int?
            var message: String?

            enum CodingKeys: String, CodingKey {
                case httpCode = "http_code"
                case message
            }
        }

        var error: Body?
    }

    /// Throws the error `body` carries, if it carries one.
    static func check(_ body: Data) throws(AuthError) {
        guard let answer = try? JSONDecoder().decode(Answer.self, from: body), let error = answer.error,
            let message = error.message, !message.isEmpty
        else { return }
        let code = error.httpCode ?? 0
        let status = (400...599).contains(code) ? HTTPResponse.Status(code: code) : .internalServerError
        throw AuthError(status, status == .internalServerError ? "unexpected_failure" : "unknown", String(message.prefix(1000)))
    }
}
