import Foundation
import Latchkey

/// Asking for the 6-digit code of an authenticator app and verifying it: after the password
/// at `login`, and in the `mfa` commands. On a terminal a wrong code is asked again (up to
/// ``SignInFlow/attempts`` times); a code given with `--totp-code` is tried once; with neither,
/// the command stops with a usage failure that names the option.
struct SecondFactorPrompt {
    let context: ClientContext
    /// The server, for failure messages.
    let server: String

    /// Verifies a code for `factor` with `manager`, and returns the session at `aal2`.
    /// - Parameters:
    ///   - given: The code from `--totp-code`, if any.
    ///   - reason: What the code is for, in the failure when there is no way to ask.
    func verify(_ factor: Factor, with manager: SessionManager, given: String?, reason: String) async throws -> Session {
        let prompt = CodePrompt(
            terminal: context.terminal, question: "Code from your authenticator app\(factor.friendlyName.map { " (\($0))" } ?? ""): ",
            normalize: TOTPCodeText.normalized, shape: "the code is the six digits your authenticator app shows.",
            noTerminal: ClientFailure.usage(
                "\(reason), and there is no terminal to ask for it.",
                hint: "Pass the code your authenticator app shows with --totp-code CODE."),
            wrong: .wrongTOTPCode, retryAdvice: "Try the code your app shows now.")
        return try await prompt.run(given: given, notACode: { "'\($0)' is not a code from an authenticator app: it has six digits." }) { code in
            try await check(code, factor: factor, manager: manager)
        }
    }

    private func check(_ code: String, factor: Factor, manager: SessionManager) async throws -> Session {
        do {
            return try await context.terminal.progress("Checking the code…") {
                try await manager.mfa.challengeAndVerify(factorID: factor.id, code: code)
            }
        } catch let failure as AuthFailure where ["mfa_verification_failed", "mfa_challenge_expired"].contains(failure.code) {
            throw ClientFailure.wrongTOTPCode
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
    /// The factor a code is asked for: the first verified authenticator-app factor.
    var firstVerifiedTOTPFactor: Factor? { user.factors.first(where: \.isVerifiedTOTP) }
}
