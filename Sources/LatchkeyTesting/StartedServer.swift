/// A server the tests start, use and shut down.
protocol StartedServer: Sendable {
    func shutdown() async throws
}

extension StartedServer {
    /// Runs `body` with this server, then shuts it down, also when `body` throws: `body`'s
    /// error is then the one thrown, not the shutdown's.
    func use<T>(_ body: (Self) async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body(self)
        } catch {
            try? await shutdown()
            throw error
        }
        try await shutdown()
        return result
    }
}

extension TestAuthServer: StartedServer {}
extension TestIdentityProvider: StartedServer {}
