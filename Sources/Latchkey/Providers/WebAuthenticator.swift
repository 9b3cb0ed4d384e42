import Foundation

/// A browser sheet that opens a sign-in page and hands back the URL the sign-in ended at:
/// what ``AuthAccount/signInWithOAuth(provider:redirectTo:scopes:)`` and
/// ``AuthIdentities/link(provider:redirectTo:scopes:)`` open the provider's page with.
///
/// On Apple platforms use `SystemWebAuthenticator` (`ASWebAuthenticationSession`);
/// set it as ``SessionManagerConfiguration/webAuthenticator``. Tests inject one that
/// answers with a callback URL of their choosing.
public protocol WebAuthenticator: Sendable {
    /// Opens `url` and returns the first URL the browser is sent to that matches `callbackURL`
    /// (its scheme, and for `https` callbacks its host and path).
    /// - Parameters:
    ///   - ephemeral: Asks the browser not to share cookies or data with the user's normal
    ///     browsing, so that no earlier sign-in at the provider is reused.
    /// - Throws: ``WebAuthenticationError/cancelled`` when the user closes the sheet; any other
    ///   error when the sheet cannot be shown.
    func authenticate(url: URL, callbackURL: URL, ephemeral: Bool) async throws -> URL
}

/// Why a ``WebAuthenticator`` ended without a callback URL.
public enum WebAuthenticationError: Error, Sendable, Hashable {
    /// The user closed the sheet (or declined to continue): not a failure to show.
    case cancelled
    /// The sheet could not be shown (no window to present it from, or the callback URL is not
    /// one this system version can wait for).
    case cannotStart(reason: String)
}

/// How a sign-in in the browser ended.
public enum WebSignInResult: Sendable, Hashable {
    /// Signed in (or, for a link, the account now has the new identity); the session is stored
    /// and published like every other.
    case signedIn(Session)
    /// The user closed the browser sheet: nothing changed, and there is nothing to tell them.
    case cancelled
}
