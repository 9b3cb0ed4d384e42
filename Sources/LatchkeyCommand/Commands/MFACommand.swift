import ArgumentParser
import Foundation
import Latchkey

/// `latchkey mfa`: two-step verification with an authenticator app (TOTP) or a phone that
/// receives codes by text message.
struct MFACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa",
        abstract: "Two-step verification: add, list, verify and remove authenticator apps and phones.",
        discussion: """
            Once an authenticator app is verified, 'latchkey login' asks for its 6-digit code after \
            the password (--totp-code CODE in scripts). Once a phone is verified (mfa enroll --phone \
            NUMBER), 'latchkey login' has the server text it a code and asks for it on the terminal.
            """,
        subcommands: [MFAEnrollCommand.self, MFAVerifyCommand.self, MFAListCommand.self, MFARemoveCommand.self])
}

/// `latchkey mfa enroll`: adds an authenticator app (or with `--phone` a phone number) and
/// verifies its first code.
struct MFAEnrollCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Add an authenticator app (TOTP), or a phone with --phone, to the signed-in account.",
        discussion: """
            Prints the otpauth:// URI and the secret to add to the app (and a QR code on a \
            terminal), then asks for the first code the app shows. Without a terminal the new \
            factor is left unverified: finish with 'latchkey mfa verify FACTOR --totp-code CODE' \
            (unverified factors expire). The URI and secret are shown once and never stored. \
            With --phone NUMBER the server texts a code to the number and the command asks for it \
            on the terminal; without a terminal the phone is left unverified: finish with \
            'latchkey mfa verify FACTOR' at a terminal.
            """)

    @Option(
        name: .customLong("phone"),
        help: ArgumentHelp("Add this phone number (E.164, such as +15555550100): codes by text message instead of an app.", valueName: "number"))
    var phone: String?

    @Option(name: .customLong("name"), help: ArgumentHelp("A name for the app, unique on the account (e.g. \"Phone\").", valueName: "name"))
    var name: String?

    @Option(name: .customLong("issuer"), help: ArgumentHelp("The service name the app shows (default: the server's host).", valueName: "issuer"))
    var issuer: String?

    @Option(
        name: .customLong("totp-code"),
        help: ArgumentHelp(
            "When the session must be verified first (the account already has an authenticator app): that app's current code.",
            valueName: "code"))
    var totpCode: String?

    @OptionGroup var client: ClientOptions

    func validate() throws {
        if phone != nil, issuer != nil { throw ValidationError("--issuer names the service in an authenticator app; a phone has none") }
    }

    func run() async throws {
        try await client.run { context in
            let mfa = try await MFAContext.restore(context)
            let profile = mfa.profile
            try await mfa.raiseIfNeeded(
                given: totpCode, reason: "Adding a second factor to this account needs a code from the one it already has")
            if let phone {
                try await enrollPhone(phone, mfa: mfa)
                return
            }
            let enrollment = try await mfa.call("Adding the authenticator app…") {
                try await profile.manager.mfa.enrollTOTP(friendlyName: name, issuer: issuer)
            }
            let label = enrollment.friendlyName.map { "'\($0)'" } ?? "the authenticator app"
            context.terminal.output("Add this account to your authenticator app:")
            if let qr = TerminalQRCode.render(enrollment.uri, terminal: context.terminal) {
                context.terminal.output(qr)
            }
            context.terminal.output("  URI:     \(enrollment.uri)")
            context.terminal.output("  secret:  \(enrollment.secret)")
            context.terminal.output("  factor:  \(enrollment.factorID)")
            guard context.terminal.inputIsTerminal else {
                context.terminal.output(
                    "Then verify it with the code it shows: latchkey mfa verify \(enrollment.factorID) --totp-code CODE\(ProfileName.flag(context.profile))"
                )
                return
            }
            let factor = Factor(id: enrollment.factorID, friendlyName: enrollment.friendlyName, status: .unverified)
            try await mfa.verifyNew(factor, label: label, reason: "Verifying the authenticator app needs its code")
        }
    }

    /// Adds `phone` as a factor and, on a terminal, verifies the code the server texts to it.
    private func enrollPhone(_ phone: String, mfa: MFAContext) async throws {
        let context = mfa.context
        let manager = mfa.profile.manager
        let enrolled = try await mfa.call("Adding the phone…") { try await manager.mfa.enrollPhone(phone, friendlyName: name) }
        let label = enrolled.friendlyName.map { "'\($0)'" } ?? enrolled.displayedPhone ?? "the phone"
        context.terminal.output("Added \(enrolled.displayedPhone ?? phone) as a second factor (factor \(enrolled.id)).")
        guard context.terminal.inputIsTerminal else {
            context.terminal.output(
                "Verify it at a terminal (a code is texted then): latchkey mfa verify \(enrolled.id)\(ProfileName.flag(context.profile))")
            return
        }
        try await mfa.verifyNew(enrolled, label: label, reason: "Verifying the phone needs the code texted to it")
    }
}

/// `latchkey mfa verify`: verifies a code of an authenticator app (finishing its enrollment, or
/// raising the session to aal2).
struct MFAVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a code from an authenticator app or texted to a phone: finishes adding it, or verifies this session.",
        discussion: """
            Without FACTOR, the account's verified authenticator app, else its verified phone (or its only \
            factor). A phone's code is texted when the command runs and asked for on the terminal.
            """)

    @Argument(help: ArgumentHelp("The factor's id or name (see 'latchkey mfa list').", valueName: "factor"))
    var factor: String?

    @Option(name: .customLong("totp-code"), help: ArgumentHelp("The code the app shows (for scripts; asked for on a terminal).", valueName: "code"))
    var totpCode: String?

    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await client.run { context in
            let (mfa, factors) = try await MFAContext.restoreWithFactors(context)
            let chosen: Factor
            if let factor {
                chosen = try MFAContext.resolve(factor, in: factors, profile: context.profile)
            } else if let only = factors.first(where: \.isVerifiedTOTP) ?? factors.first(where: \.isVerifiedPhone)
                ?? (factors.count == 1 ? factors.first : nil)
            {
                chosen = only
            } else if factors.isEmpty {
                throw ClientFailure(
                    .other, "This account has no authenticator app.", hint: "Add one with 'latchkey mfa enroll\(ProfileName.flag(context.profile))'.")
            } else {
                throw ClientFailure.usage("Say which authenticator app: \(factors.map { $0.friendlyName ?? $0.id }.joined(separator: ", ")).")
            }
            let session = try await mfa.verify(chosen, given: totpCode, reason: "Verifying needs the code from the authenticator app")
            let label = chosen.friendlyName.map { "'\($0)'" } ?? chosen.id
            if chosen.status == .unverified {
                context.terminal.output(MFAContext.turnedOn(label))
            } else {
                context.terminal.output("Verified with \(label): this session is at \(session.assurance.level).")
            }
        }
    }
}

/// `latchkey mfa list`: the account's second factors (authenticator apps, phones with their
/// numbers).
struct MFAListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the account's second factors: authenticator apps and phones.")

    @Flag(name: .customLong("json"), help: "Print the factors as JSON.") var json = false
    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await client.run { context in
            let (_, factors) = try await MFAContext.restoreWithFactors(context)
            if json {
                context.terminal.output(try JSONOutput.render(factors.map(FactorSummary.init)))
                return
            }
            guard !factors.isEmpty else {
                context.terminal.output("No authenticator apps. Add one with 'latchkey mfa enroll\(ProfileName.flag(context.profile))'.")
                return
            }
            let rows = factors.map {
                [
                    $0.id, $0.friendlyName ?? "-", $0.factorType, $0.status.rawValue, $0.createdAt.map(Durations.timestamp) ?? "-",
                    $0.displayedPhone ?? "-",
                ]
            }
            for line in TextTable.render(header: ["ID", "NAME", "TYPE", "STATUS", "CREATED", "PHONE"], rows: rows) {
                context.terminal.output(line)
            }
        }
    }
}

/// `latchkey mfa remove` (or `unenroll`): removes an authenticator app or a phone.
struct MFARemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an authenticator app or a phone from the account.",
        discussion: """
            Removing a verified factor needs this session verified with a code (asked for on a terminal, or \
            --totp-code for an authenticator app).
            """,
        aliases: ["unenroll"])

    @Argument(help: ArgumentHelp("The factor's id or name (see 'latchkey mfa list').", valueName: "factor"))
    var factor: String

    @Option(
        name: .customLong("totp-code"),
        help: ArgumentHelp(
            "When the session must be verified first: the code of a verified authenticator app (for scripts).", valueName: "code"))
    var totpCode: String?

    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await client.run { context in
            let (mfa, factors) = try await MFAContext.restoreWithFactors(context)
            let profile = mfa.profile
            let chosen = try MFAContext.resolve(factor, in: factors, profile: context.profile)
            if chosen.status == .verified {
                try await mfa.raiseIfNeeded(given: totpCode, reason: "Removing a verified factor needs a code from a verified factor")
            }
            try await mfa.call("Removing the factor…") { try await profile.manager.mfa.unenroll(factorID: chosen.id) }
            let label = chosen.friendlyName.map { "'\($0)' (\(chosen.id))" } ?? chosen.id
            context.terminal.output("Removed \(label).")
            if !factors.contains(where: { $0.id != chosen.id && $0.status == .verified }) {
                context.terminal.output("Two-step verification is off: 'latchkey login' asks for the password only.")
            }
        }
    }
}

/// What the `mfa` commands share: calls in the command's words, and raising the session to
/// `aal2` when the server will need it.
struct MFAContext {
    let profile: ProfileSession

    var context: ClientContext { profile.context }

    /// The signed-in profile's MFA context, restored from its stored session.
    static func restore(_ context: ClientContext) async throws -> MFAContext {
        MFAContext(profile: try await ProfileSession.restore(context).0)
    }

    /// The signed-in profile's MFA context and the account's factors (asked for behind a
    /// progress line).
    static func restoreWithFactors(_ context: ClientContext) async throws -> (MFAContext, [Factor]) {
        let mfa = try await restore(context)
        return (mfa, try await mfa.call("Asking the server…") { try await mfa.profile.manager.mfa.listFactors() })
    }

    /// What a command says once `label`'s app is verified and protects the account.
    static func turnedOn(_ label: String) -> String {
        "Two-step verification is on: \(label) is verified. 'latchkey login' will ask for its code."
    }

    /// Asks for (or takes `given`) a code of `factor` and verifies it, saying `reason` first.
    func verify(_ factor: Factor, given: String?, reason: String) async throws -> Session {
        try await SecondFactorPrompt(context: context, server: profile.settings.server).verify(
            factor, with: profile.manager, given: given, reason: reason)
    }

    /// Verifies the first code of `factor`, just enrolled and called `label`: it then protects
    /// the account; when the code is not verified the command says how to finish or remove it.
    func verifyNew(_ factor: Factor, label: String, reason: String) async throws {
        do {
            _ = try await verify(factor, given: nil, reason: reason)
        } catch {
            context.terminal.message("latchkey: \(label) is added but not verified, so it does not protect the account yet.")
            context.terminal.message(
                "  Verify it with 'latchkey mfa verify \(factor.id)\(ProfileName.flag(context.profile))', or remove it with 'latchkey mfa remove \(factor.id)'."
            )
            throw error
        }
        context.terminal.output(Self.turnedOn(label))
    }

    /// Runs `body` behind a progress line; a failure becomes the command's words.
    func call<T>(_ label: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await context.terminal.progress(label) { try await body() }
        } catch let failure as AuthFailure {
            throw await profile.explain(failure)
        }
    }

    /// Verifies a code first when the session is `aal1` and the account has a verified
    /// authenticator app or phone (the server refuses the change otherwise).
    func raiseIfNeeded(given: String?, reason: String) async throws {
        guard let session = await profile.manager.currentSession, session.requiresSecondFactor,
            let factor = session.factorToAsk
        else { return }
        _ = try await verify(factor, given: given, reason: reason)
    }

    /// The factor `text` names: its id, or else its name (which must be unambiguous).
    static func resolve(_ text: String, in factors: [Factor], profile: String) throws -> Factor {
        if let byID = factors.first(where: { $0.id.caseInsensitiveCompare(text) == .orderedSame }) { return byID }
        let named = factors.filter { $0.friendlyName == text }
        if named.count == 1, let factor = named.first { return factor }
        if named.count > 1 {
            throw ClientFailure.usage("Several authenticator apps are named '\(text)': use the id (\(named.map(\.id).joined(separator: ", "))).")
        }
        throw ClientFailure.usage("This account has no authenticator app '\(text)'.", hint: "See 'latchkey mfa list\(ProfileName.flag(profile))'.")
    }
}

/// A factor as `mfa list --json` prints it.
struct FactorSummary: Encodable {
    let id: String
    let friendlyName: String?
    let factorType: String
    let status: String
    let createdAt: String?
    /// A phone factor's number (`+15555550100`).
    let phone: String?

    init(_ factor: Factor) {
        id = factor.id
        friendlyName = factor.friendlyName
        factorType = factor.factorType
        status = factor.status.rawValue
        createdAt = factor.createdAt.map(Durations.timestamp)
        phone = factor.displayedPhone
    }

    enum CodingKeys: String, CodingKey {
        case id, status, phone
        case friendlyName = "friendly_name"
        case factorType = "factor_type"
        case createdAt = "created_at"
    }
}
