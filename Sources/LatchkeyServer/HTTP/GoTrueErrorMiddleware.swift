import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyWire
import Logging

/// Turns every error into GoTrue's JSON error shape (``AuthError``'s own answer), so a client
/// never sees an HTML page, an empty 500 or a stack trace: Hummingbird's errors and store
/// failures in GoTrue's words, anything else a 500.
struct GoTrueErrorMiddleware<Context: RequestContext>: RouterMiddleware {

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return Self.authError(error, logger: context.logger).response(to: request)
        }
    }

    /// The one place a failure becomes an answer: a domain error as it is, Hummingbird's own
    /// errors (404, 405, 413) in GoTrue's words, a store failure by what it means
    /// (``AuthError/init(_:)``, logged), anything else a 500 that names only the error's type.
    static func authError(_ error: any Error, logger: Logger) -> AuthError {
        if let answer = AuthError(answering: error) { return answer }
        switch error {
        case let error as HTTPError:
            return translate(error)
        case let error as StoreError:
            switch error {
            case .duplicateEmail, .duplicatePhone, .duplicateUserID, .duplicateCredential: break
            case .unreadableRow(let column): logger.error("unreadable stored row", metadata: ["column": "\(column)"])
            case .unavailable: logger.error("store failure", metadata: ["error": "\(error)"])
            }
            return AuthError(error)
        default:
            logger.error("unexpected failure", metadata: ["error.type": "\(type(of: error))"])
            return .unexpected
        }
    }

    static func translate(_ error: HTTPError) -> AuthError {
        switch error.status {
        case .notFound: .notFound
        case .contentTooLarge: .requestTooLarge
        case .badRequest: .validation(error.body ?? "Bad request")
        case .methodNotAllowed: AuthError(.methodNotAllowed, "method_not_allowed", "Method not allowed")
        default: AuthError(error.status, "request_failed", error.body ?? error.status.reasonPhrase)
        }
    }
}
