import ArgumentParser
import Foundation
import Latchkey

/// `latchkey account`: what a signed-in user does to the account itself.
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Manage the signed-in account.",
        subcommands: [AccountDeleteCommand.self])
}

/// `latchkey account delete`: deletes the signed-in account on the server (a Latchkey server
/// with `--allow-self-deletion`), then removes the session from this computer.
struct AccountDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the signed-in account on the server, and sign out here.",
        discussion: """
            The server asks for proof that you are the account's owner now: with two-step \
            verification, a code from your authenticator app (--totp-code CODE in scripts); \
            otherwise a code the server mails you (asked on the terminal, or: run once without \
            --code to have it sent, then again with --code CODE). The command asks you to type \
            the account's address (or 'delete') before anything is sent; --yes skips that. \
            Needs a Latchkey server started with --allow-self-deletion.
            """)

    @Flag(name: .customLong("yes"), help: "Do not ask for confirmation.")
    var yes = false

    @Option(name: .customLong("code"), help: ArgumentHelp("The code the server mailed for this deletion.", valueName: "code"))
    var code: String?

    @Option(
        name: .customLong("totp-code"),
        help: ArgumentHelp("With two-step verification: the code your authenticator app shows now.", valueName: "code"))
    var totpCode: String?

    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await client.run { context in
            let (profile, _) = try await ProfileSession.restore(context)
            let mfa = MFAContext(profile: profile)
            let session: Session
            do {
                session = try await profile.manager.session(minTTL: 30)
            } catch let failure as AuthFailure {
                throw await profile.explain(failure)
            }
            let user = session.user
            let name = user.email ?? user.phone ?? "this anonymous account"
            try confirm(name: name, terminal: context.terminal, expected: user.email)

            let proof: AccountReauthentication
            if let factor = user.factors.first(where: { $0.isVerifiedTOTP || $0.isVerifiedPhone }) {
                _ = try await mfa.verify(factor, given: totpCode, reason: "Deleting this account needs a code from its second factor")
                proof = .recentSecondFactor
            } else if user.isAnonymous, user.email == nil, user.phone == nil {
                proof = .sessionOnly
            } else {
                proof = .nonce(try await reauthenticationCode(mfa))
            }
            try await mfa.call("Deleting the account…") { try await profile.manager.account.delete(reauthentication: proof) }
            if profile.credentials.kind == .file {
                try? FileManager.default.removeItem(at: context.profileDirectory.appendingPathComponent("credentials"))
            }
            var settings = profile.settings
            settings.signedInAt = nil
            try? settings.save(to: context.profileDirectory)
            context.terminal.output("Deleted \(name) on \(profile.settings.server), and signed out.")
        }
    }

    /// Asks the person to type the account's address (or `delete`), unless `--yes`.
    private func confirm(name: String, terminal: Terminal, expected: String?) throws {
        guard !yes else { return }
        guard terminal.inputIsTerminal else {
            throw ClientFailure.usage("Deleting an account cannot be undone, and there is no terminal to confirm it.", hint: "Pass --yes.")
        }
        terminal.message("This deletes \(name) and everything it holds on the server. It cannot be undone.")
        let answer = terminal.ask("Type \(expected.map { "the address (\($0))" } ?? "'delete'") to confirm: ")?
            .trimmingCharacters(in: .whitespaces)
        guard let answer, answer.lowercased() == (expected ?? "delete").lowercased() else {
            throw ClientFailure.usage("Not confirmed; nothing was deleted.")
        }
    }

    /// The mailed code: `--code`, or sent now and asked for on the terminal.
    private func reauthenticationCode(_ mfa: MFAContext) async throws -> String {
        let terminal = mfa.context.terminal
        if let code {
            guard let digits = EmailCode.normalized(code) else { throw ClientFailure.usage("'\(code)' is not a code from the email.") }
            return digits
        }
        try await mfa.call("Sending a code…") { try await mfa.profile.manager.account.reauthenticate() }
        guard terminal.inputIsTerminal else {
            throw ClientFailure.usage(
                "A code was mailed to confirm the deletion, and there is no terminal to ask for it.",
                hint: "Run 'latchkey account delete --yes --code CODE\(ProfileName.flag(mfa.context.profile))' with the code from the email.")
        }
        for _ in 1...3 {
            guard let answer = terminal.ask("Code from the email: ") else { break }
            if let digits = EmailCode.normalized(answer) { return digits }
            terminal.message("latchkey: the code is the digits in the email. Try again.")
        }
        throw ClientFailure.usage("No valid code given; nothing was deleted.")
    }
}
