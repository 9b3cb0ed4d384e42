import Foundation

extension AuthStore {
    /// Spends the token whose code `code` was sent (by email or SMS) to `address`, of one of
    /// `kinds`, with its user. Only the code's hash bound to the address is looked up, so a code
    /// counts for its own address or number only. Wrong codes count against the address, and
    /// after too many every code for it is refused for a while; a wrong or spent code is 403
    /// `otp_expired` "Token has expired or is invalid". The caller checks the token's age.
    func spendSentCode(
        _ code: String, sentTo address: String, kinds: [OneTimeToken.Kind], tokens: OpaqueTokens, limits: RateLimits
    ) async throws -> (token: OneTimeToken, user: UserRecord) {
        try await limits.checkCodeAttempts(for: address)
        guard let redeemed = try await consumeOneTimeToken(codeHash: tokens.codeHash(code, address: address), kinds: kinds),
            redeemed.token.relatesTo == address
        else {
            try await limits.recordFailedCode(for: address)
            throw AuthError.codeExpired
        }
        return redeemed
    }
}
