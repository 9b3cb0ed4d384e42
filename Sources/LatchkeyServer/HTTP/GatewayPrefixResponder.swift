import Hummingbird

/// Serves every route also under `/auth/v1`, the prefix Supabase's API gateway adds, so an
/// unmodified Supabase client pointed at the server's URL (`createClient("http://host:9999", key)`)
/// reaches the same endpoints as a client that talks to the root.
struct GatewayPrefixResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == AuthRequestContext {
    static var prefix: String { "/auth/v1" }
    let inner: Inner

    func respond(to request: Request, context: AuthRequestContext) async throws -> Response {
        guard let path = request.head.path, path.hasPrefix(Self.prefix),
            path.count == Self.prefix.count || ["/", "?"].contains(path[path.index(path.startIndex, offsetBy: Self.prefix.count)])
        else {
            return try await inner.respond(to: request, context: context)
        }
        var head = request.head
        let rest = String(path.dropFirst(Self.prefix.count))
        head.path = rest.hasPrefix("/") ? rest : "/" + rest
        return try await inner.respond(to: Request(head: head, body: request.body), context: context)
    }
}
