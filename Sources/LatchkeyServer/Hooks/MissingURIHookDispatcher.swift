import Foundation

/// A hook enabled without a URI: every call fails as GoTrue's does (its hook manager finds no
/// protocol to call): 500 `unexpected_failure`. The server warns about it at start.
struct MissingURIHookDispatcher: HookDispatcher {
    let clock: any ServerClock

    func dispatch(_ payload: Data) async throws(AuthError) -> Data? {
        throw AuthError.unexpected
    }
}
