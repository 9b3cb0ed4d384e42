import Foundation
import LatchkeyTestSupport

@testable import Latchkey

/// Stores `session` as ``SessionManager`` would have after a sign-in at `signedInAt`.
func storeSession(
    _ session: Session, in store: any CredentialStore, key: String = "latchkey.session",
    signedInAt: Date, lastServerContact: Date? = nil
) async throws {
    let record = StoredSession(session: session, signedInAt: signedInAt, lastServerContact: lastServerContact ?? signedInAt)
    try await store.save(try record.encoded(), key: key)
}
