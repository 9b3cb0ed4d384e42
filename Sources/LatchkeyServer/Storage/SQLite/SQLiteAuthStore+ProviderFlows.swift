import Foundation
import GRDB

/// Browser sign-ins at providers on SQLite.
extension SQLiteAuthStore {
    func saveProviderFlow(_ flow: ProviderFlow, deletingStartedBefore cutoff: Date) async throws {
        try await write { db in
            try db.run(sql: "DELETE FROM provider_flows WHERE created_at < ?", arguments: [cutoff.timeIntervalSince1970])
            try db.run(
                sql: """
                    INSERT INTO provider_flows (id, provider, redirect_to, code_challenge, code_challenge_method, linking_user_id,
                        provider_verifier, nonce, browser_binding_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    flow.id.lowercasedString, flow.provider, flow.redirectTo, flow.codeChallenge, flow.codeChallengeMethod?.rawValue,
                    flow.linkingUserID?.lowercasedString, flow.providerVerifier, flow.nonce, flow.browserBindingHash,
                    flow.createdAt.timeIntervalSince1970,
                ])
        }
    }

    func consumeProviderFlow(id: UUID) async throws -> ProviderFlow? {
        try await write { db in
            let key = id.lowercasedString
            guard let row = try db.fetchRow(sql: "SELECT * FROM provider_flows WHERE id = ?", arguments: [key]) else { return nil }
            try db.run(sql: "DELETE FROM provider_flows WHERE id = ?", arguments: [key])
            return ProviderFlow(
                id: id, provider: row["provider"], redirectTo: row["redirect_to"], codeChallenge: row["code_challenge"],
                codeChallengeMethod: (row["code_challenge_method"] as String?).flatMap(FlowState.ChallengeMethod.init(rawValue:)),
                linkingUserID: try SQLiteRows.optionalUUID(row, "linking_user_id", of: "provider_flows"), providerVerifier: row["provider_verifier"],
                nonce: row["nonce"], browserBindingHash: row["browser_binding_hash"], createdAt: Date(timeIntervalSince1970: row["created_at"]))
        }
    }
}
