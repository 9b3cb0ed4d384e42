import Foundation

/// `latchkey import firebase`: reads a `firebase auth:export` JSON file one account at a time
/// and writes each through the store in its own transaction (``ImportPlan``), so an interrupted
/// import is finished by running it again. Nothing it reports or logs holds an address, a hash
/// or a key: refused rows are named by their position and Firebase UID.
package struct FirebaseImport: Sendable {
    let store: any AuthStore
    let hashConfig: FirebaseHashConfig?
    let confirmUnverified: Bool
    let now: @Sendable () -> Date

    package init(store: any AuthStore, hashConfig: FirebaseHashConfig?, confirmUnverified: Bool, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.hashConfig = hashConfig
        self.confirmUnverified = confirmUnverified
        self.now = now
    }

    /// Imports every account of `file`; `progress` is called after every `progressEvery` rows.
    package func run(
        file: URL, progressEvery: Int = 10_000, progress: @Sendable (ImportReport) -> Void = { _ in }
    ) async throws -> ImportReport {
        var elements = try JSONArrayElements(file: file)
        defer { elements.close() }
        var report = ImportReport()
        let decoder = JSONDecoder()
        while let bytes = try elements.next() {
            report.read += 1
            let position = report.read
            let exported: FirebaseExportUser
            do {
                exported = try decoder.decode(FirebaseExportUser.self, from: Data(bytes))
            } catch let error as DecodingError {
                report.refuse(position: position, uid: nil, reason: "not a Firebase account (\(Self.describe(error)))")
                continue
            }
            _ = try await report.importRow(position: position, uid: exported.localId) { (try await importAccount(exported), ()) }
            if report.read % progressEvery == 0 { progress(report) }
        }
        return report
    }

    func importAccount(_ exported: FirebaseExportUser) async throws -> ImportOutcome {
        let now = now()
        let account = try FirebaseAccountMapping.account(exported, hashConfig: hashConfig, confirmUnverified: confirmUnverified, now: now)
        let firebase = account.identities.first { $0.provider == "firebase" }
        let lookup = IdentityLookup(
            provider: firebase?.provider, subject: firebase?.subject, emails: account.user.email.isEmpty ? [] : [account.user.email],
            userID: account.user.id)
        return try await store.changeIdentities(lookup) { state in try ImportPlan.plan(account, state: state, now: now) }
    }

    /// Where a row failed to decode, without its values.
    static func describe(_ error: DecodingError) -> String {
        let path: [any CodingKey]
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
            if case .keyNotFound(let key, _) = error { return "missing \(key.stringValue)" }
        @unknown default:
            path = []
        }
        let field = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return field.isEmpty ? "not a JSON object" : "unreadable \(field)"
    }
}
