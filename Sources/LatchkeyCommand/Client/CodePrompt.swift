import Foundation

/// Asking for a short code and handing it to the server until it is accepted: the emailed
/// codes of `login`, `signup` and `reset-password`, and the authenticator-app codes of `login`
/// and `mfa`.
///
/// A code given on the command line is tried once. On a terminal the code is asked up to
/// `attempts` times: an answer that is not a code, or a code the server refuses as `wrong`, is
/// asked again. With neither, the command stops with `noTerminal`.
struct CodePrompt {
    let terminal: Terminal
    /// The question, e.g. `Code from the email: `.
    let question: String
    /// The code in `text` as the server wants it (digits only), or `nil` when it is not one.
    let normalize: @Sendable (String) -> String?
    /// What a code looks like, told after an answer that is not one.
    let shape: String
    /// The failure when no code was given and there is no terminal to ask on.
    let noTerminal: ClientFailure
    /// The failure `check` throws for a code the server refused; the code is then asked again.
    let wrong: ClientFailure
    /// What to do before trying again after a refused code.
    let retryAdvice: String
    var attempts = SignInFlow.attempts

    /// Asks for the code (or takes `given`) and returns what `check` makes of it.
    /// - Parameter given: A code from the command line, in `option`.
    func run<T>(given: String?, notACode: (String) -> String, check: (String) async throws -> T) async throws -> T {
        if let given {
            guard let code = normalize(given) else { throw ClientFailure.usage(notACode(given)) }
            return try await check(code)
        }
        guard terminal.inputIsTerminal else { throw noTerminal }
        for attempt in 1...attempts {
            guard let answer = terminal.ask(question) else { throw ClientFailure.usage("No code given.") }
            guard let code = normalize(answer) else {
                if attempt == attempts { throw ClientFailure.usage("No valid code given.") }
                terminal.message("latchkey: \(shape) Try again.")
                continue
            }
            do {
                return try await check(code)
            } catch let failure as ClientFailure where failure == wrong && attempt < attempts {
                terminal.message("latchkey: \(failure.message) \(retryAdvice)")
            }
        }
        throw wrong
    }
}
