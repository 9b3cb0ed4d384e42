import Hummingbird

/// Lets a request through only with a signed-in user's access token
/// (``BearerAuthentication/user(bearer:)``), and puts who that is in the context
/// (``AuthRequestContext/signedIn()``). Added to the route group of every route that needs a
/// signed-in user, so a handler never checks the caller itself; it runs before the body is read.
struct SignedInUserMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let authentication: BearerAuthentication

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.authenticated = try await authentication.user(bearer: request.bearerToken())
        return try await next(request, context)
    }
}

/// Lets a signed-in user through only when the account is not anonymous, as GoTrue's
/// `requireNotAnonymous`: added after ``SignedInUserMiddleware`` to the route group of
/// `/factors`, so an anonymous account is refused 403 before its body is read or any limit
/// is counted.
struct NotAnonymousMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if try context.signedIn().user.isAnonymous { throw AuthError.anonymousNotAllowed }
        return try await next(request, context)
    }
}

/// Lets a signed-in user through only with a token of the user's own sign-in, not one issued to
/// another app through the OAuth server (a session with an OAuth client): added after
/// ``SignedInUserMiddleware`` to the routes that change the account, its factors, passkeys,
/// identities or grants, and to the consent routes, so that an app the user allowed to sign in
/// cannot take the account over, allow other apps, or remove its own revocation. Such a token
/// still reads the user (`GET /user`, `/oauth/userinfo`) and signs its own session out.
struct FirstPartySessionMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if try context.signedIn().session.oauthClientID != nil { throw AuthError.oauthClientTokenRefused }
        return try await next(request, context)
    }
}

/// Counts a request against one of the server's rate limits before its handler runs, by the
/// client's address (GoTrue's `limitHandler` on a route): a request over the limit is a 429
/// and its body is never read.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    /// Admits a request from an address or throws 429 `over_request_rate_limit`.
    let admit: @Sendable (_ ipAddress: String) async throws -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await admit(context.clientIP)
        return try await next(request, context)
    }
}

/// Lets a request through only with an administrator key (``BearerAuthentication/admin(bearer:)``):
/// added to the route group of `/admin/…`, `/invite` and `/admin/generate_link`, so every
/// administrator route checks the key before it reads anything else of the request.
struct AdministratorMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let authentication: BearerAuthentication

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await authentication.admin(bearer: request.bearerToken())
        return try await next(request, context)
    }
}

extension AuthRequestContext {
    /// The signed-in user of a route behind ``SignedInUserMiddleware``.
    ///
    /// Throws 401 `no_authorization` on a route without that middleware, so a route added to
    /// the wrong group fails closed.
    func signedIn() throws(AuthError) -> BearerAuthentication.Authenticated {
        guard let authenticated else { throw .noAuthorization }
        return authenticated
    }
}
