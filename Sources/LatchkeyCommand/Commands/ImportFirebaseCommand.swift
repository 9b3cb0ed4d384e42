import ArgumentParser
import Foundation
import LatchkeyServer
import Logging

/// `latchkey import firebase USERS.json --hash-config FILE`: Firebase Authentication's users,
/// with their UIDs and passwords, written straight into the server's store.
///
/// It writes through the store rather than the admin API: the API cannot set what an import
/// must keep (creation time, linked identities), and the store's one transaction per account
/// makes a re-run an update of the same rows.
struct ImportFirebaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "firebase",
        abstract: "Import the users of `firebase auth:export --format=json`; their Firebase passwords keep working.",
        discussion: """
            USERS.json is the file `firebase auth:export USERS.json --format=json` writes. --hash-config is a \
            file holding the project's password hash parameters as the Firebase console shows them \
            (Authentication > Users > ⋮ > Password hash parameters: base64_signer_key, base64_salt_separator, \
            rounds, mem_cost), as that text or as a JSON object with the same names. Without it, accounts with \
            a password are refused.

            Each user keeps their Firebase UID: as the user id when it is a UUID; otherwise the id is a UUID \
            made from the UID (the same on every run) and the UID is the subject of a `firebase` identity. \
            The email address, its verified state, the display name and photo (user_metadata display_name, \
            avatar_url), the creation and last sign-in times, the disabled state (a ban) and the custom claims \
            (app_metadata) come along, and each linked Google, Apple, GitHub, Facebook or Twitter account \
            becomes an identity. A password is verified with Firebase's scrypt and re-hashed with bcrypt at \
            the user's first sign-in. Users whose address Firebase had not verified cannot sign in with a \
            password until they confirm it, unless --confirm-unverified is given.

            Running it again updates the same users and never makes new ones: an interrupted import is \
            finished by running it again. Rows it cannot take are listed with the reason. Nothing it prints \
            holds an address, a hash or a key.
            """)

    @Argument(help: "The JSON file of `firebase auth:export --format=json`.")
    var users: String
    @Option(name: .customLong("hash-config"), help: "A file with the project's password hash parameters.")
    var hashConfig: String?
    @Flag(name: .customLong("confirm-unverified"), help: "Confirm the addresses Firebase had not verified, so their passwords keep working.")
    var confirmUnverified = false
    @OptionGroup var destination: ImportDestinationOptions

    func run() async throws {
        umask(0o077)
        let config: FirebaseHashConfig?
        do {
            config = try hashConfig.map { path in try FirebaseHashConfig(parsing: try String(contentsOfFile: path, encoding: .utf8)) }
        } catch let error as FirebaseHashConfig.Invalid {
            throw ValidationError(error.description)
        } catch {
            throw ValidationError("cannot read --hash-config \(hashConfig ?? ""): \(error.localizedDescription)")
        }
        let file = URL(fileURLWithPath: users)
        guard FileManager.default.isReadableFile(atPath: file.path) else { throw ValidationError("cannot read \(users)") }

        let logger = Logger(label: "latchkey-import", factory: { _ in SwiftLogNoOpLogHandler() })
        let report = try await destination.withStore(destination.configuration(), logger: logger) { store in
            try await FirebaseImport(store: store, hashConfig: config, confirmUnverified: confirmUnverified).run(file: file) { progress in
                Terminal.writeError("… \(progress.read) accounts read\n")
            }
        }
        print(
            "read \(report.read) accounts: \(report.created) created, \(report.updated) updated, \(report.unchanged) unchanged, \(report.refused.count) refused"
        )
        for row in report.refused {
            print("refused account \(row.position)\(row.uid.map { " (uid \($0))" } ?? ""): \(row.reason)")
        }
    }
}
