import Foundation
import Logging

/// A PostgreSQL function hook's URI, `pg-functions://<database>/<schema>/<function>` (the
/// database part is not read: the function is called on the store's own database), checked as
/// GoTrue checks it: schema and function are PostgreSQL names (a letter or `_`, then letters,
/// digits and `_`, at most 63 characters), so they can be quoted into SQL safely.
struct PostgresFunctionName: Sendable, Equatable {
    let uri: String
    let schema: String
    let function: String

    init(uri: String) throws(HookEndpoint.URIError) {
        guard let components = URLComponents(string: uri), components.scheme?.lowercased() == "pg-functions" else {
            throw HookEndpoint.URIError(description: "is not a pg-functions:// URI")
        }
        let parts = components.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3 else { throw HookEndpoint.URIError(description: "must be pg-functions://postgres/<schema>/<function>") }
        for (what, name) in [("schema", parts[1]), ("function", parts[2])] where !Self.isName(name) {
            throw HookEndpoint.URIError(description: "has an invalid \(what) name (letters, digits and _, at most 63)")
        }
        self.uri = uri
        schema = parts[1]
        function = parts[2]
    }

    /// `"schema"."function"`, safe in SQL (both are checked names).
    var quoted: String { "\"\(schema)\".\"\(function)\"" }

    private static func isName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 63 else { return false }
        func letter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "_" }
        return letter(first) && name.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) }
    }
}

/// What can call a PostgreSQL function hook: the PostgreSQL store.
protocol HookFunctionCaller: Sendable {
    /// The function's answer (as JSON text; `nil` for SQL `NULL`) to `payload`, in a
    /// transaction of its own whose statements may run at most `timeout`.
    func callHookFunction(_ function: PostgresFunctionName, payload: String, timeout: Duration) async throws -> String?
}

/// Calls a PostgreSQL function hook as GoTrue does: `SELECT "schema"."function"(payload)` with
/// the same JSON payload as an HTTP hook, in its own transaction with a 2-second
/// `statement_timeout`. A function that raises, runs too long or cannot be called is a 500
/// `Error running hook URI: …`; its answer's `{"error": {"http_code", "message"}}` is the
/// client's error, as over HTTP. Neither the payload nor the database's message is logged.
struct PostgresFunctionDispatcher: HookDispatcher {
    let function: PostgresFunctionName
    /// The PostgreSQL store (`nil` with another store: every call fails).
    let caller: (any HookFunctionCaller)?
    let clock: any ServerClock
    let logger: Logger
    var timeout: Duration = .seconds(2)

    func dispatch(_ payload: Data) async throws(AuthError) -> Data? {
        let answer: String?
        do {
            guard let caller else { throw HookEndpoint.URIError(description: "no PostgreSQL store") }
            answer = try await caller.callHookFunction(function, payload: String(decoding: payload, as: UTF8.self), timeout: timeout)
        } catch {
            logger.warning(
                "auth hook function failed", metadata: ["function": "\(function.schema).\(function.function)", "error": "\(type(of: error))"])
            throw AuthError.hookFailed("Error running hook URI: \(function.uri)")
        }
        guard let answer else { return nil }
        let data = Data(answer.utf8)
        try HookError.check(data)
        return data
    }
}
