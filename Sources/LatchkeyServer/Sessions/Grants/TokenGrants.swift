import Foundation
import Hummingbird
import LatchkeyWire

/// The grants `POST /token` accepts, by `grant_type`.
struct TokenGrants: Sendable {
    /// Every grant type the server knows, in the order an error message names them.
    ///
    /// A new grant type is registered here, and nowhere else.
    static let all: [Registration] = [
        Registration(PasswordGrant.self),
        Registration(RefreshGrant.self),
        Registration(PKCEGrant.self),
        Registration(IDTokenGrant.self),
    ]

    /// A grant type in ``all``: its name, what metrics count it as, and how to build its handler.
    struct Registration: Sendable {
        let grantType: String
        let metric: GrantMetric
        let handler: @Sendable (FeatureDependencies) -> Handler

        init<Grant: TokenGrant>(_ grant: Grant.Type) {
            grantType = Grant.grantType
            metric = Grant.metric
            handler = { Grant.handler($0) }
        }
    }

    /// What the metrics count each registered grant type as; an unknown `grant_type` is not
    /// counted (so that made-up names cannot grow the metrics).
    static let metrics: [String: GrantMetric] = Dictionary(uniqueKeysWithValues: all.map { ($0.grantType, $0.metric) })

    /// Answers one `POST /token` request of a grant type.
    typealias Handler = @Sendable (Request, AuthRequestContext) async throws -> SessionResponse

    private let handlers: [String: Handler]

    init(_ dependencies: FeatureDependencies, grants: [Registration] = Self.all) {
        handlers = Dictionary(uniqueKeysWithValues: grants.map { ($0.grantType, $0.handler(dependencies)) })
        let names = grants.map(\.grantType)
        choices = names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }

    /// The registered grant types as the error for a missing or unknown one lists them:
    /// "password, refresh_token or pkce".
    let choices: String

    /// The handler for `grantType`: 400 `validation_failed` when it is missing, GoTrue's 422
    /// `web3_provider_disabled` for `web3`, 400 `unsupported_grant_type` when no grant has that
    /// name.
    func handler(for grantType: String?) throws(AuthError) -> Handler {
        guard let grantType else { throw AuthError.validation("grant_type is required: \(choices)") }
        // Sign in with Ethereum or Solana is not served: GoTrue's answer while both are disabled.
        if grantType == "web3" { throw AuthError.web3ProviderDisabled }
        guard let handler = handlers[grantType] else {
            throw AuthError(.badRequest, "unsupported_grant_type", "Unsupported grant_type \"\(grantType.prefix(40))\": use \(choices)")
        }
        return handler
    }
}
