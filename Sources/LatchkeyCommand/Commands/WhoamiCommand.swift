import ArgumentParser
import Foundation
import Latchkey

/// `latchkey whoami`: the signed-in user, as the server sees them now.
struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show the signed-in user, fetched from the server.",
        discussion: "Asking the server notices a session revoked elsewhere or a deleted account: the local session then ends too (exit code 1).")

    @Flag(name: .customLong("json"), help: "Print the user as JSON.") var json = false
    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await client.run { context in
            let (profile, _) = try await ProfileSession.restore(context)
            let user = try await context.terminal.progress("Asking the server…") { try await profile.fetchUser() }
            if json {
                context.terminal.output(try JSONOutput.render(UserSummary(user)))
            } else {
                context.terminal.output(user.email ?? user.phone ?? user.id)
                context.terminal.output("user id: \(user.id)")
            }
        }
    }
}

/// The user fields `whoami --json` prints.
struct UserSummary: Encodable {
    let id: String
    let email: String?
    let phone: String?
    let role: String?
    let emailConfirmed: Bool
    let createdAt: String?
    let lastSignInAt: String?

    init(_ user: User) {
        id = user.id
        email = user.email
        phone = user.phone
        role = user.role
        emailConfirmed = user.isEmailConfirmed
        createdAt = user.createdAt.map(Durations.timestamp)
        lastSignInAt = user.lastSignInAt.map(Durations.timestamp)
    }

    enum CodingKeys: String, CodingKey {
        case id, email, phone, role
        case emailConfirmed = "email_confirmed"
        case createdAt = "created_at"
        case lastSignInAt = "last_sign_in_at"
    }
}

/// Stable, sorted JSON for `--json` output.
enum JSONOutput {
    static func render(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
