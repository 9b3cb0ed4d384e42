import Foundation

/// What an import did: counts, and each row it could not take (or took in part) with the reason.
package struct ImportReport: Sendable, Equatable {
    /// A row named by its position and its id at the source; the reason names fields, never values.
    package struct Refused: Sendable, Equatable {
        /// 1 for the first account read.
        package var position: Int
        package var uid: String?
        package var reason: String
    }

    package var read = 0
    package var created = 0
    package var updated = 0
    package var unchanged = 0
    package var refused: [Refused] = []
    /// Accounts imported without something the source had (a password hash the server cannot
    /// verify, a factor whose secret is encrypted, a session it cannot carry), and why.
    package var leftOut: [Refused] = []
    /// Identities at external providers the imported accounts have; TOTP factors, WebAuthn
    /// factors, phone factors, passkeys and sessions stored (new or already there from an
    /// earlier run).
    package var identities = 0
    package var factors = 0
    package var webAuthnFactors = 0
    package var phoneFactors = 0
    package var passkeys = 0
    package var sessions = 0

    package init() {}

    mutating func count(_ outcome: ImportOutcome) {
        switch outcome {
        case .created: created += 1
        case .updated: updated += 1
        case .unchanged: unchanged += 1
        }
    }

    /// Runs `body`, the import of the account read at `position`, and counts its outcome. A
    /// refusal, an address another user holds or a constraint of the database (an identity
    /// another user holds) refuses that row only, and the result is `nil`; a store failure stops
    /// the import.
    mutating func importRow<Imported>(
        position: Int, uid: String?, _ body: () async throws -> (ImportOutcome, Imported)
    ) async throws -> Imported? {
        do {
            let (outcome, imported) = try await body()
            count(outcome)
            return imported
        } catch let refusal as ImportRefusal {
            refuse(position: position, uid: uid, reason: refusal.reason)
        } catch StoreError.duplicateEmail {
            refuse(position: position, uid: uid, reason: "the email address belongs to another user")
        } catch StoreError.duplicatePhone {
            refuse(position: position, uid: uid, reason: "the phone number belongs to another user")
        } catch let error as StoreError {
            throw error
        } catch {
            refuse(position: position, uid: uid, reason: "the database refused it (\(type(of: error)))")
        }
        return nil
    }

    mutating func refuse(position: Int, uid: String?, reason: String) {
        refused.append(Refused(position: position, uid: uid, reason: reason))
    }

    mutating func leaveOut(position: Int, uid: String?, reason: String) {
        leftOut.append(Refused(position: position, uid: uid, reason: reason))
    }

    /// Reports `what` of the account at `position` as left out for `error`: a refusal with its
    /// reason, a credential another account holds, a constraint of the database by the error's
    /// type; a store failure is rethrown.
    mutating func leaveOut(position: Int, uid: String?, what: String, _ error: any Error) throws {
        switch error {
        case let refusal as ImportRefusal: leaveOut(position: position, uid: uid, reason: "\(what): \(refusal.reason)")
        case StoreError.duplicateCredential:
            leaveOut(position: position, uid: uid, reason: "\(what): its credential is registered here already to another account")
        case is StoreError, is CancellationError: throw error
        default: leaveOut(position: position, uid: uid, reason: "\(what): the database refused it (\(type(of: error)))")
        }
    }
}
