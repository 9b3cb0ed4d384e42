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
            do {
                let outcome = try await importAccount(exported)
                report.count(outcome)
            } catch let refusal as ImportRefusal {
                report.refuse(position: position, uid: exported.localId, reason: refusal.reason)
            } catch StoreError.duplicateEmail {
                report.refuse(position: position, uid: exported.localId, reason: "the email address belongs to another user")
            } catch let error as StoreError {
                throw error
            } catch {
                // A constraint of the database (an identity another user holds): the row only.
                report.refuse(position: position, uid: exported.localId, reason: "the database refused it (\(type(of: error)))")
            }
            if report.read % progressEvery == 0 { progress(report) }
        }
        return report
    }

    func importAccount(_ exported: FirebaseExportUser) async throws -> ImportOutcome {
        let now = now()
        let account = try FirebaseAccountMapping.account(exported, hashConfig: hashConfig, confirmUnverified: confirmUnverified, now: now)
        let firebase = account.identities.first { $0.provider == "firebase" }
        let lookup = IdentityLookup(
            provider: firebase?.provider, subject: firebase?.subject, emails: [account.user.email], userID: account.user.id)
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

/// What an import did: counts, and each row it could not take with the reason.
package struct ImportReport: Sendable, Equatable {
    package struct Refused: Sendable, Equatable {
        /// 1 for the first account of the file.
        package var position: Int
        package var uid: String?
        package var reason: String
    }

    package var read = 0
    package var created = 0
    package var updated = 0
    package var unchanged = 0
    package var refused: [Refused] = []

    package init() {}

    mutating func count(_ outcome: ImportOutcome) {
        switch outcome {
        case .created: created += 1
        case .updated: updated += 1
        case .unchanged: unchanged += 1
        }
    }

    mutating func refuse(position: Int, uid: String?, reason: String) {
        refused.append(Refused(position: position, uid: uid, reason: reason))
    }
}
