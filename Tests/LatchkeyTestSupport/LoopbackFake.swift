/// A stand-in for an outside service (a CAPTCHA provider, the breached-password API) served by a
/// `LoopbackHTTPServer` for one test.
package protocol LoopbackFake: Sendable {
    func stop() async
}

extension LoopbackFake {
    /// Runs `body` with this stand-in, then stops it, whether `body` threw or not.
    package func serving<T>(_ body: (Self) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }
}
