import Foundation
import PostgresNIO

/// Multi-factor authentication on PostgreSQL.
///
/// Every factor change of a user first locks the user's row, so changes of one user's factors
/// serialise whichever instance runs them (a code's time step is accepted once, the factor
/// limits hold under concurrent enrolments); then the session row, as refresh rotation locks it
/// (session before tokens), so the two never wait for each other in a cycle.
extension PostgresAuthStore {
    func factors(userID: UUID) async throws -> [FactorRecord] {
        try await autocommit { connection in try await connection.selectFactors(userID: userID, logger: self.logger) }
    }

    func changeFactors<Result: Sendable>(
        of userID: UUID, challengeID: UUID?, sessionID: UUID?, plan: @escaping @Sendable (FactorState) -> FactorPlan<Result>
    ) async throws -> Result {
        try await transaction { connection in
            try await connection.query("SELECT id FROM users WHERE id = \(userID) FOR UPDATE", logger: self.logger)
            let factors = try await connection.selectFactors(userID: userID, logger: self.logger)
            var challenge: ChallengeRecord?
            if let challengeID {
                challenge = try await connection.query(
                    "SELECT \(unescaped: PostgresRows.challengeColumns) FROM mfa_challenges WHERE id = \(challengeID) FOR UPDATE",
                    logger: self.logger
                ).firstRow(PostgresRows.challenge)
            }
            var session: SessionRecord?
            if let sessionID {
                session = try await connection.query(
                    "SELECT \(unescaped: PostgresRows.sessionColumns) FROM sessions WHERE id = \(sessionID) FOR UPDATE", logger: self.logger
                ).firstRow(PostgresRows.session)
            }
            let decided = plan(FactorState(factors: factors, challenge: challenge, session: session))
            for change in decided.changes {
                for statement in PostgresRows.statements(for: change) {
                    try await connection.query(statement.query, logger: self.logger)
                }
            }
            return decided.result
        }
    }
}
