import Foundation
import Latchkey

/// Asking for the code of a second factor and verifying it: after the password at `login`, and
/// in the `mfa` commands. For an authenticator app, the 6-digit code it shows; for a phone
/// factor, the server texts a code first (one challenge) and the code typed is verified against
/// it. On a terminal a wrong code is asked again (up to ``SignInFlow/attempts`` times); an
/// authenticator app's code given with `--totp-code` is tried once; with neither, the command
/// stops with a usage failure that says what to do.
struct SecondFactorPrompt {
    let context: ClientContext
    /// The server, for failure messages.
    let server: String

    /// Verifies a code for `factor` with `manager`, and returns the session at `aal2`.
    /// - Parameters:
    ///   - given: The code from `--totp-code`, if any (authenticator apps only).
    ///   - reason: What the code is for, in the failure when there is no way to ask.
    func verify(_ factor: Factor, with manager: SessionManager, given: String?, reason: String) async throws -> Session {
        if factor.factorType == "phone" { return try await verifyPhone(factor, with: manager, given: given, reason: reason) }
        let prompt = CodePrompt(
            terminal: context.terminal, question: "Code from your authenticator app\(factor.friendlyName.map { " (\($0))" } ?? ""): ",
            normalize: TOTPCodeText.normalized, shape: "the code is the six digits your authenticator app shows.",
            noTerminal: ClientFailure.usage(
                "\(reason), and there is no terminal to ask for it.",
                hint: "Pass the code your authenticator app shows with --totp-code CODE."),
            wrong: .wrongTOTPCode, retryAdvice: "Try the code your app shows now.")
        return try await prompt.run(given: given, notACode: { "'\($0)' is not a code from an authenticator app: it has six digits." }) { code in
            try await check(code, wrong: .wrongTOTPCode) { try await manager.mfa.challengeAndVerify(factorID: factor.id, code: code) }
        }
    }

    /// A phone factor: the server texts a code (one challenge, whose code is asked again after
    /// a wrong answer); only on a terminal, since the code exists only once the command runs.
    private func verifyPhone(_ factor: Factor, with manager: SessionManager, given: String?, reason: String) async throws -> Session {
        let number = factor.displayedPhone ?? "your phone"
        let atTerminal = "Run the command at a terminal: the code is asked for once it is texted to \(number)."
        guard given == nil else {
            throw ClientFailure.usage("--totp-code is for authenticator apps; this factor's code is texted to \(number).", hint: atTerminal)
        }
        guard context.terminal.inputIsTerminal else {
            throw ClientFailure.usage("\(reason), and there is no terminal to ask for it.", hint: atTerminal)
        }
        let challenge: FactorChallenge
        do {
            challenge = try await context.terminal.progress("Texting a code to \(number)…") {
                try await manager.mfa.challenge(factorID: factor.id, channel: .sms)
            }
        } catch let failure as AuthFailure {
            throw ClientFailure(failure, profile: context.profile, server: server)
        }
        let prompt = CodePrompt(
            terminal: context.terminal, question: "Code texted to \(number): ", normalize: EmailCode.normalized,
            shape: "the code is the digits in the text message.",
            noTerminal: ClientFailure.usage("\(reason), and there is no terminal to ask for it.", hint: atTerminal),
            wrong: .wrongPhoneFactorCode, retryAdvice: "Type the code of the newest text message.")
        return try await prompt.run(given: nil, notACode: { "'\($0)' is not a texted code: it has six to ten digits." }) { code in
            try await check(code, wrong: .wrongPhoneFactorCode) {
                try await manager.mfa.verify(factorID: factor.id, challengeID: challenge.id, code: code)
            }
        }
    }

    /// Runs `verify` behind a progress line: a code the server refuses is `wrong`, any other
    /// refusal the command's words for it.
    private func check(_ code: String, wrong: ClientFailure, _ verify: () async throws -> Session) async throws -> Session {
        do {
            return try await context.terminal.progress("Checking the code…") { try await verify() }
        } catch let failure as AuthFailure where ["mfa_verification_failed", "mfa_challenge_expired"].contains(failure.code) {
            throw wrong
        } catch let failure as AuthFailure {
            throw ClientFailure(failure, profile: context.profile, server: server)
        }
    }
}

extension ClientFailure {
    /// A code from an authenticator app the server refused (wrong, already used, or from
    /// another account's entry).
    static let wrongTOTPCode = ClientFailure(
        .notSignedIn, "That code from your authenticator app is wrong.",
        hint: "Codes change every 30 seconds and work once; check that the app's entry is for this account and server.")

    /// A texted code of a phone factor the server refused (wrong, or from an older message).
    static let wrongPhoneFactorCode = ClientFailure(
        .notSignedIn, "That texted code is wrong.", hint: "Only the code of the newest text message works, once and for a few minutes.")
}

/// Codes from authenticator apps, as typed: spaces and dashes between the digits are ignored.
enum TOTPCodeText {
    /// The six digits of `text`, or `nil` when it is not a code.
    static func normalized(_ text: String) -> String? {
        let digits = text.filter { !$0.isWhitespace && $0 != "-" }
        guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return digits
    }
}

extension Session {
    /// The factor a code is asked for: the first verified authenticator app, or else the first
    /// verified phone.
    var factorToAsk: Factor? { user.factors.first(where: \.isVerifiedTOTP) ?? user.factors.first(where: \.isVerifiedPhone) }
}

extension Factor {
    /// A phone factor's number as people write it (`+15555550100`); `nil` for other kinds.
    var displayedPhone: String? { phone.map { $0.hasPrefix("+") ? $0 : "+" + $0 } }
}
