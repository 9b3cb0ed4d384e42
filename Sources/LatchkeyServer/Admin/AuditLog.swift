import Foundation
import LatchkeyWire

/// `GET /admin/audit`: the security events, newest first (the route checks the administrator key).
struct AuditLog: Sendable {
    let store: any AuthStore

    func entries(_ page: Page) async throws -> [AuditEntryResponse] {
        try await store.auditEntries(offset: page.offset, limit: page.limit).map(AuditEntryResponse.init)
    }
}
