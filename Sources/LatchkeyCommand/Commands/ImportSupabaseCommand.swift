import ArgumentParser
import Foundation
import LatchkeyServer
import Logging

/// `latchkey import supabase --database-url URL`: the users of a Supabase project (or any
/// GoTrue), read from its PostgreSQL `auth` schema with their ids, passwords, identities,
/// passkeys, TOTP, WebAuthn and phone factors and, with `--sessions`, their live sessions, written
/// straight into the server's store.
///
/// As `import firebase`, it writes through the store rather than the admin API, one transaction
/// per account, so a re-run updates the same rows.
struct ImportSupabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "supabase",
        abstract: "Import the users of a Supabase (GoTrue) database; their passwords, ids and sessions keep working.",
        discussion: """
            --database-url is the Supabase project's PostgreSQL database (Project Settings > Database > \
            Connection string), or any database holding GoTrue's auth schema, such as one restored from a \
            pg_dump of it. It is only read.

            Each user keeps their id, so the app's own tables keep their foreign keys, with the email \
            address and the phone number, their confirmations, the bcrypt password hash, the ban, the creation and last sign-in \
            times, raw_user_meta_data (user_metadata), raw_app_meta_data (app_metadata), anonymity and each \
            identity at an external provider. Verified TOTP factors come along while their secret is stored \
            in plain text (not with GoTrue's database encryption on). Passkeys and verified WebAuthn factors \
            come along with their credential; they keep working when the server runs with the project's \
            relying party (--webauthn-rp-id and --webauthn-rp-origins as GOTRUE_WEBAUTHN_RP_ID and \
            GOTRUE_WEBAUTHN_RP_ORIGINS). Verified phone factors come along with their number. Phone-only \
            users sign in with codes texted to their number here. Deleted users are refused; a password hash \
            the server cannot verify (argon2) leaves the user without a password.

            With --sessions, each live session comes along with its newest refresh token: an app holding it \
            refreshes against Latchkey once and keeps its user signed in. Access tokens issued by Supabase stay \
            valid only when the server runs with the project's JWT secret (--jwt-secret or GOTRUE_JWT_SECRET); \
            give the import the same secret (LATCHKEY_JWT_SECRET or GOTRUE_JWT_SECRET) or the same --data-dir, \
            since it seals the TOTP secrets with it.

            Running it again updates the same users and never makes new ones: an interrupted import is \
            finished by running it again. Rows it cannot take are listed with the user id and the reason. \
            Nothing it prints holds an address, a hash, a secret or a token.
            """)

    @Option(name: .customLong("database-url"), help: "The Supabase database: postgres://USER:PASSWORD@HOST:PORT/DATABASE[?sslmode=require].")
    var databaseURL: String
    @Option(name: .customLong("schema"), help: "The schema holding GoTrue's tables.")
    var schema = "auth"
    @Flag(name: .customLong("sessions"), help: "Also carry over live sessions and their refresh tokens.")
    var sessions = false
    @OptionGroup var destination: ImportDestinationOptions

    func run() async throws {
        umask(0o077)
        let logger = Logger(label: "latchkey-import", factory: { _ in SwiftLogNoOpLogHandler() })
        let configuration = destination.configuration()
        let source: SupabaseAuthSchema
        do {
            source = try await SupabaseAuthSchema.connect(url: databaseURL, schema: schema, logger: logger)
        } catch {
            throw ValidationError(error.description)
        }
        let report: ImportReport
        do {
            report = try await destination.withStore(configuration, logger: logger) { store in
                try await SupabaseImport(store: store, configuration: configuration, sessions: sessions).run(source: source) { progress in
                    Terminal.writeError("… \(progress.read) users read\n")
                }
            }
            await source.close()
        } catch {
            await source.close()
            throw error
        }
        print(
            "read \(report.read) users: \(report.created) created, \(report.updated) updated, \(report.unchanged) unchanged, \(report.refused.count) refused"
        )
        print(
            "carried over: \(report.identities) identities, \(report.factors) TOTP factors, \(report.webAuthnFactors) WebAuthn factors, "
                + "\(report.phoneFactors) phone factors, \(report.passkeys) passkeys" + (sessions ? ", \(report.sessions) sessions" : ""))
        for row in report.refused {
            print("refused user \(row.position)\(row.uid.map { " (id \($0))" } ?? ""): \(row.reason)")
        }
        for row in report.leftOut {
            print("left out of user \(row.position)\(row.uid.map { " (id \($0))" } ?? ""): \(row.reason)")
        }
    }
}
