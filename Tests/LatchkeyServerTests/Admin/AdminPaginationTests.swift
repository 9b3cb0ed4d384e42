import Foundation
import Testing

@testable import LatchkeyServer

/// `GET /admin/users` pagination as GoTrue answers it: empty parameters are the defaults, and
/// `Link` and `X-Total-Count` say where the next and last pages are.
@Suite("Admin pagination")
struct AdminPaginationTests {
    /// supabase-js's reading of `Link` (GoTrueAdminApi.listUsers): the first digit after the
    /// first `=` of each link, and the JSON-quoted rel.
    static func supabaseJSPages(_ link: String) -> [String: Int] {
        var pages: [String: Int] = [:]
        for part in link.components(separatedBy: ",") {
            let halves = part.components(separatedBy: ";")
            let page = Int(String(halves[0].components(separatedBy: "=")[1].prefix(1)))
            let rel = halves[1].components(separatedBy: "=")[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            pages[rel] = page
        }
        return pages
    }

    @Test("empty page= and per_page= are the defaults; an empty server's last page is 0")
    func emptyParameters() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            let none = try await server.request(.GET, "/admin/users?page=&per_page=", bearer: key)
            #expect(none.status == 200)
            #expect(none.headers.first(name: "X-Total-Count") == "0")
            #expect(none.headers.first(name: "Link") == #"</admin/users?page=0&per_page=>; rel="last""#)

            for index in 0..<3 { try await server.signUp("page\(index)@example.com") }
            let all = try await server.request(.GET, "/admin/users?page=&per_page=", bearer: key)
            #expect(all.status == 200)
            #expect((all["users"] as? [Any])?.count == 3)
            #expect(all["aud"] as? String == "authenticated")
            #expect(all.headers.first(name: "X-Total-Count") == "3")
            #expect(all.headers.first(name: "Link") == #"</admin/users?page=1&per_page=>; rel="last""#)
            let bare = try await server.request(.GET, "/admin/users", bearer: key)
            #expect(bare.headers.first(name: "Link") == #"</admin/users?page=1>; rel="last""#)

            for bad in ["page=abc", "page=0", "per_page=-1", "per_page=1001", "page=1.5"] {
                let response = try await server.request(.GET, "/admin/users?\(bad)", bearer: key)
                response.expectError(400, "validation_failed")
            }
        }
    }

    @Test("Link has next and last as GoTrue builds them, and supabase-js reads the right pages from it")
    func linkHeader() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            for index in 0..<5 { try await server.signUp("link\(index)@example.com") }

            let first = try await server.request(.GET, "/admin/users?page=1&per_page=2", bearer: key)
            let firstLink = try #require(first.headers.first(name: "Link"))
            #expect(firstLink == #"</admin/users?page=2&per_page=2>; rel="next", </admin/users?page=3&per_page=2>; rel="last""#)
            #expect(Self.supabaseJSPages(firstLink) == ["next": 2, "last": 3])
            #expect(first.headers.first(name: "X-Total-Count") == "5")

            let last = try await server.request(.GET, "/admin/users?per_page=2&page=3", bearer: key)
            #expect((last["users"] as? [Any])?.count == 1)
            #expect(last.headers.first(name: "Link") == #"</admin/users?page=3&per_page=2>; rel="last""#)

            // Other parameters are kept, re-encoded with sorted keys as Go encodes a query.
            let sorted = try await server.request(.GET, "/admin/users?sort=created_at%20desc&per_page=2&page=1", bearer: key)
            #expect(
                sorted.headers.first(name: "Link")
                    == #"</admin/users?page=2&per_page=2&sort=created_at+desc>; rel="next", </admin/users?page=3&per_page=2&sort=created_at+desc>; rel="last""#
            )

            // Behind the /auth/v1 prefix the links name the path GoTrue sees behind Supabase's gateway.
            let prefixed = try await server.request(.GET, "/auth/v1/admin/users?page=2&per_page=2", bearer: key)
            #expect(
                prefixed.headers.first(name: "Link") == #"</admin/users?page=3&per_page=2>; rel="next", </admin/users?page=3&per_page=2>; rel="last""#
            )
        }
    }

    @Test("GET /admin/users: newest first, sort=created_at asc|desc, filter= on address and name; other sorts 400 as GoTrue")
    func sortAndFilter() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            for index in 0..<3 {
                try await server.signUp("sorted\(index)@example.com")
                server.clock.advance(by: 1)
            }
            func emails(_ query: String) async throws -> [String] {
                let response = try await server.request(.GET, "/admin/users?\(query)", bearer: key)
                #expect(response.status == 200, "\(query)")
                return (response["users"] as? [[String: Any]] ?? []).compactMap { $0["email"] as? String }
            }
            let newest = ["sorted2@example.com", "sorted1@example.com", "sorted0@example.com"]
            #expect(try await emails("") == newest)
            #expect(try await emails("sort=created_at") == newest)
            #expect(try await emails("sort=created_at%20desc") == newest)
            #expect(try await emails("sort=created_at%20ASC") == newest.reversed())
            #expect(try await emails("filter=SORTED1") == ["sorted1@example.com"])
            let filtered = try await server.request(.GET, "/admin/users?filter=sorted&per_page=1", bearer: key)
            #expect(filtered.headers.first(name: "X-Total-Count") == "3")

            let field = try await server.request(.GET, "/admin/users?sort=email", bearer: key)
            field.expectError(400, "validation_failed")
            #expect(field["msg"] as? String == "Bad Sort Parameters: bad field for sort 'email'")
            let direction = try await server.request(.GET, "/admin/users?sort=created_at%20up", bearer: key)
            direction.expectError(400, "validation_failed")
            #expect(direction["msg"] as? String == "Bad Sort Parameters: bad direction for sort 'up', only 'asc' and 'desc' allowed")
        }
    }
}
