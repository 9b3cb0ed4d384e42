import Foundation
import PostgresNIO

extension PostgresAuthStore: HookFunctionCaller {
    func callHookFunction(_ function: PostgresFunctionName, payload: String, timeout: Duration) async throws -> String? {
        let milliseconds = max(1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return try await transaction { connection in
            try await connection.query("SET LOCAL statement_timeout TO \(unescaped: String(milliseconds))", logger: self.logger)
            let rows = try await connection.query("SELECT \(unescaped: function.quoted)(\(payload)::jsonb)::text", logger: self.logger)
            var answer: String?
            for try await value in rows.decode(String?.self) { answer = value }
            return answer
        }
    }
}
