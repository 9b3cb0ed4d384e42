import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// `redirect_to` reaches a `Location` header only as the URL the policy parsed: a CR or LF
/// smuggled into it never becomes part of the header.
@Suite("Redirect policy: header injection")
struct RedirectPolicyTests {
    static let injected = "https://app.example.com/welcome/next\r\nSet-Cookie: sb=attacker"

    @Test("the policy answers the parsed URL, never the raw text with CR or LF")
    func parsedURL() {
        let policy = RedirectPolicy(siteURL: "https://app.example.com/welcome", origin: ServerOrigin("http://127.0.0.1:9999"), additionalURLs: [])
        for candidate in [Self.injected, "http://127.0.0.1:5000/cb\r\nSet-Cookie: sb=attacker", "https://app.example.com/welcome/a b"] {
            let resolved = policy.resolve(candidate)
            #expect(!resolved.contains("\r") && !resolved.contains("\n") && !resolved.contains(" "), "\(resolved.debugDescription)")
            #expect(resolved.hasPrefix("https://app.example.com/welcome") || resolved.hasPrefix("http://127.0.0.1:5000/cb"))
        }
        #expect(policy.resolve("https://app.example.com/welcome/next?x=1") == "https://app.example.com/welcome/next?x=1")
    }

    @Test("GET /verify with a CR/LF in redirect_to: the Location header holds no injected header")
    func verifyLocation() async throws {
        try await TestServer.with(configure: {
            $0.autoconfirm = false
            $0.siteURL = "https://app.example.com/welcome"
        }) { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "crlf@example.com", "password": "correct horse battery"])
            let token = try server.linkToken(to: "crlf@example.com", type: "signup")
            var query = URLComponents()
            query.queryItems = [
                URLQueryItem(name: "token", value: token), URLQueryItem(name: "type", value: "signup"),
                URLQueryItem(name: "redirect_to", value: Self.injected),
            ]
            let response = try await server.request(.GET, "/verify?" + (query.percentEncodedQuery ?? ""))
            let location = try #require(response.headers.first(name: "Location"), "\(response.status)")
            #expect(location.hasPrefix("https://app.example.com/welcome/next"))
            #expect(!location.contains(" ") && !location.contains("Set-Cookie: "), "\(location)")
            #expect(response.headers["Set-Cookie"].allSatisfy { !$0.contains("attacker") })
        }
    }
}
