import Foundation
import PostgresNIO

/// Browser sign-ins at providers on PostgreSQL.
extension PostgresAuthStore {
    func saveProviderFlow(_ flow: ProviderFlow, deletingStartedBefore cutoff: Date) async throws {
        try await transaction { connection in
            try await connection.query("DELETE FROM provider_flows WHERE created_at < \(cutoff)", logger: self.logger)
            try await connection.query(
                """
                INSERT INTO provider_flows (id, provider, redirect_to, code_challenge, code_challenge_method, linking_user_id,
                    provider_verifier, nonce, browser_binding_hash, created_at)
                VALUES (\(flow.id), \(flow.provider), \(flow.redirectTo), \(flow.codeChallenge), \(flow.codeChallengeMethod?.rawValue),
                    \(flow.linkingUserID), \(flow.providerVerifier), \(flow.nonce), \(flow.browserBindingHash), \(flow.createdAt))
                """, logger: self.logger)
        }
    }

    func consumeProviderFlow(id: UUID) async throws -> ProviderFlow? {
        try await autocommit { connection in
            try await connection.query(
                """
                DELETE FROM provider_flows WHERE id = \(id)
                RETURNING provider, redirect_to, code_challenge, code_challenge_method, linking_user_id, provider_verifier, nonce,
                    browser_binding_hash, created_at
                """, logger: self.logger
            ).firstRow { row in
                let cells = row.makeRandomAccess()
                return ProviderFlow(
                    id: id, provider: try cells[0].decode(String.self), redirectTo: try cells[1].decode(String.self),
                    codeChallenge: try cells[2].decode(String?.self),
                    codeChallengeMethod: try cells[3].decode(String?.self).flatMap(FlowState.ChallengeMethod.init(rawValue:)),
                    linkingUserID: try cells[4].decode(UUID?.self), providerVerifier: try cells[5].decode(String?.self),
                    nonce: try cells[6].decode(String.self), browserBindingHash: try cells[7].decode(String.self),
                    createdAt: try cells[8].decode(Date.self))
            }
        }
    }
}
