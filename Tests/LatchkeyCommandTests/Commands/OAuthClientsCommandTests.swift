import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Logging
import Testing

@testable import LatchkeyServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `latchkey oauth clients add|list|remove` as a real process, on the database of a real server
/// running in this process with its OAuth server on: what the command does, the admin API sees.
@Suite("latchkey oauth clients")
struct OAuthClientsCommandTests {
    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-oauth-\(UUID().uuidString)")
    }

    /// The `key: value` line of `output`.
    func value(_ key: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("\(key): ") }.map { String($0.dropFirst(key.count + 2)) }
    }

    func json(_ data: Data) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    func json(_ text: String) -> [String: Any] { json(Data(text.utf8)) }

    /// The stored record of the client `id`, read from the database file as the server reads it.
    func storedClient(_ id: UUID, in data: URL) async throws -> OAuthClientRecord? {
        let store = try SQLiteAuthStore(path: DatabaseLocation.defaultSQLitePath(in: data))
        do {
            let client = try await store.oauthClient(id: id)
            try await store.close()
            return client
        } catch {
            try? await store.close()
            throw error
        }
    }

    @Test("add prints the id and, once, a working secret; list shows the client without it; remove deletes it as the admin API does")
    func lifecycle() async throws {
        let data = temporaryDirectory()
        let server = try await TestAuthServer.start(dataDirectory: data) { $0.oauthServer.enabled = true }
        defer { try? FileManager.default.removeItem(at: data) }
        do {
            let add = try await CommandRunner.run([
                "oauth", "clients", "add", "--name", "Example Notes", "--redirect-uri", "https://notes.example.com/callback",
                "--redirect-uri", "http://localhost:3000/callback", "--client-uri", "https://notes.example.com", "--data-dir", data.path,
            ])
            #expect(add.status == 0, "\(add.stderr)")
            let id = try #require(value("client_id", in: add.stdout).flatMap(UUID.init(uuidString:)), "\(add.stdout)")
            let secret = try #require(value("client_secret", in: add.stdout), "\(add.stdout)")
            #expect(secret.count == 43, "32 bytes, base64url without padding")
            #expect(add.stderr.contains("will not be shown again"), "\(add.stderr)")

            // The secret printed is the one the server will check; nothing else matches.
            let stored = try #require(try await storedClient(id, in: data))
            let hash = try #require(stored.secretHash)
            #expect(OAuthClientSecret.matches(secret, storedHash: hash))
            #expect(!OAuthClientSecret.matches(secret + "x", storedHash: hash))
            #expect(stored.clientType == .confidential && stored.authenticationMethod == .clientSecretBasic)
            #expect(stored.registration == .manual)
            #expect(stored.redirectURIs == ["https://notes.example.com/callback", "http://localhost:3000/callback"])

            // The admin API answers the same client, without its secret.
            let listed = try await server.admin("GET", "/admin/oauth/clients")
            #expect(listed.status == 200)
            let clients = (json(listed.body)["clients"] as? [[String: Any]]) ?? []
            let client = try #require(clients.first { $0["client_id"] as? String == id.uuidString.lowercased() })
            #expect(client["client_name"] as? String == "Example Notes")
            #expect(client["client_uri"] as? String == "https://notes.example.com")
            #expect(client["client_secret"] == nil)

            let list = try await CommandRunner.run(["oauth", "clients", "list", "--data-dir", data.path])
            #expect(list.status == 0, "\(list.stderr)")
            let row = try #require(list.stdout.split(separator: "\n").first { $0.hasPrefix(id.uuidString.lowercased()) }, "\(list.stdout)")
            #expect(row.contains("Example Notes") && row.contains("confidential"))
            #expect(row.contains("https://notes.example.com/callback http://localhost:3000/callback"))
            #expect(list.stdout.hasPrefix("CLIENT ID"))
            for output in [list.stdout, list.stderr] {
                #expect(!output.contains(secret) && !output.contains(hash), "list never shows a secret or its hash")
            }

            let listJSON = try await CommandRunner.run(["oauth", "clients", "list", "--json", "--data-dir", data.path])
            #expect(listJSON.status == 0)
            let documented = (json(listJSON.stdout)["clients"] as? [[String: Any]]) ?? []
            #expect(documented.map { $0["client_id"] as? String } == clients.map { $0["client_id"] as? String })
            #expect(!listJSON.stdout.contains(secret) && !listJSON.stdout.contains(hash))

            let remove = try await CommandRunner.run(["oauth", "clients", "remove", id.uuidString, "--data-dir", data.path])
            #expect(remove.status == 0, "\(remove.stderr)")
            #expect(remove.stdout.contains("removed OAuth client \(id.uuidString.lowercased())"))
            let gone = try await server.admin("GET", "/admin/oauth/clients/\(id.uuidString.lowercased())")
            #expect(
                gone.status == 404 && json(gone.body)["error_code"] as? String == "oauth_client_not_found",
                "\(String(decoding: gone.body, as: UTF8.self))")
            #expect(try await storedClient(id, in: data) == nil, "deleted, as the admin API deletes")

            let after = try await CommandRunner.run(["oauth", "clients", "list", "--data-dir", data.path])
            #expect(after.status == 0)
            #expect(!after.stdout.contains(id.uuidString.lowercased()))
            #expect(after.stderr.contains("No OAuth clients"), "\(after.stderr)")

            let again = try await CommandRunner.run(["oauth", "clients", "remove", id.uuidString.lowercased(), "--data-dir", data.path])
            #expect(again.status == 2, "a removed client is unknown")
            #expect(again.stderr == "latchkey: no OAuth client with id \(id.uuidString.lowercased()) (removed already, or never registered)\n")
            try await server.shutdown()
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    @Test("add --public --json answers the admin API's client: public, method none, no secret")
    func publicClientJSON() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let add = try await CommandRunner.run([
            "oauth", "clients", "add", "--public", "--json", "--name", "Example CLI", "--redirect-uri", "exampleapp://callback",
            "--logo-uri", "https://cdn.example.com/logo.png", "--data-dir", data.path,
        ])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.split(separator: "\n").count == 1, "one JSON document: \(add.stdout)")
        let client = json(add.stdout)
        #expect(client["client_type"] as? String == "public")
        #expect(client["token_endpoint_auth_method"] as? String == "none")
        #expect(client["client_secret"] == nil)
        #expect(client["registration_type"] as? String == "manual")
        #expect(client["redirect_uris"] as? [String] == ["exampleapp://callback"])
        #expect(client["logo_uri"] as? String == "https://cdn.example.com/logo.png")
        #expect(client["grant_types"] as? [String] == ["authorization_code", "refresh_token"])
        #expect(client["response_types"] as? [String] == ["code"])
        let id = try #require((client["client_id"] as? String).flatMap(UUID.init(uuidString:)))
        let stored = try #require(try await storedClient(id, in: data))
        #expect(stored.clientType == .public && stored.secretHash == nil)

        let confidential = try await CommandRunner.run([
            "oauth", "clients", "add", "--json", "--name", "Example Web", "--redirect-uri", "https://web.example.com/cb", "--data-dir", data.path,
        ])
        let document = json(confidential.stdout)
        let secret = try #require(document["client_secret"] as? String, "--json carries the secret, once")
        let confidentialID = try #require((document["client_id"] as? String).flatMap(UUID.init(uuidString:)))
        #expect(OAuthClientSecret.matches(secret, storedHash: try #require(try await storedClient(confidentialID, in: data)?.secretHash)))
    }

    @Test("regenerate-secret prints a new secret once; the old one stops matching; a public or unknown client changes nothing")
    func regenerateSecret() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let add = try await CommandRunner.run([
            "oauth", "clients", "add", "--name", "Example Web", "--redirect-uri", "https://web.example.com/cb", "--data-dir", data.path,
        ])
        let id = try #require(value("client_id", in: add.stdout).flatMap(UUID.init(uuidString:)), "\(add.stdout) \(add.stderr)")
        let old = try #require(value("client_secret", in: add.stdout))

        let regenerated = try await CommandRunner.run(["oauth", "clients", "regenerate-secret", id.uuidString, "--data-dir", data.path])
        #expect(regenerated.status == 0, "\(regenerated.stderr)")
        let new = try #require(value("client_secret", in: regenerated.stdout), "\(regenerated.stdout)")
        #expect(new != old && new.count == 43)
        #expect(regenerated.stderr.contains("will not be shown again"))
        let hash = try #require(try await storedClient(id, in: data)?.secretHash)
        #expect(OAuthClientSecret.matches(new, storedHash: hash))
        #expect(!OAuthClientSecret.matches(old, storedHash: hash), "the old secret stops working at once")

        let asJSON = try await CommandRunner.run(["oauth", "clients", "regenerate-secret", "--json", id.uuidString, "--data-dir", data.path])
        let newer = try #require(json(asJSON.stdout)["client_secret"] as? String, "\(asJSON.stdout)")
        #expect(OAuthClientSecret.matches(newer, storedHash: try #require(try await storedClient(id, in: data)?.secretHash)))

        let cli = try await CommandRunner.run([
            "oauth", "clients", "add", "--public", "--json", "--name", "Example CLI", "--redirect-uri", "exampleapp://callback", "--data-dir",
            data.path,
        ])
        let publicID = try #require((json(cli.stdout)["client_id"] as? String).flatMap(UUID.init(uuidString:)))
        let refused = try await CommandRunner.run(["oauth", "clients", "regenerate-secret", publicID.uuidString, "--data-dir", data.path])
        #expect(refused.status == 2 && refused.stdout.isEmpty && refused.stderr.contains("public client"), "\(refused.stderr)")
        #expect(try await storedClient(publicID, in: data)?.secretHash == nil)

        let unknown = try await CommandRunner.run(["oauth", "clients", "regenerate-secret", UUID().uuidString, "--data-dir", data.path])
        #expect(unknown.status == 2 && unknown.stderr.contains("no OAuth client with id"), "\(unknown.stderr)")
        let malformed = try await CommandRunner.run(["oauth", "clients", "regenerate-secret", "not-a-uuid", "--data-dir", data.path])
        #expect(malformed.status == 2 && malformed.stderr.contains("is not a client id"), "\(malformed.stderr)")
    }

    @Test("refused input is one line naming the problem, exit status 2, and creates nothing")
    func refusedInput() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let refusals: [([String], String)] = [
            (["--redirect-uri", "http://notes.example.com/callback"], "HTTP scheme only allowed for localhost"),
            (["--redirect-uri", "javascript://example.com/%0Aalert(1)"], "scheme 'javascript' is not allowed for security reasons"),
            (["--redirect-uri", "https://notes.example.com/cb#frag"], "fragment not allowed in redirect URI"),
            (["--redirect-uri", "notes.example.com/callback"], "must have scheme and host"),
            ([], "give at least one --redirect-uri"),
            (["--redirect-uri", "https://notes.example.com/cb", "--logo-uri", "logo.png"], "logo_uri must be a valid URL"),
            (Array(repeating: ["--redirect-uri", "https://notes.example.com/cb"], count: 11).flatMap { $0 }, "cannot exceed 10 items"),
        ]
        for (arguments, reason) in refusals {
            let run = try await CommandRunner.run(["oauth", "clients", "add", "--name", "Notes"] + arguments + ["--data-dir", data.path])
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("latchkey: ") && run.stderr.contains(reason), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: data.path), "nothing created, not even the database")
        }

        let empty = try await CommandRunner.run([
            "oauth", "clients", "add", "--name", " ", "--redirect-uri", "https://a.example.com/cb", "--data-dir", data.path,
        ])
        #expect(empty.status == 2 && empty.stderr == "latchkey: --name cannot be empty\n")

        let notUUID = try await CommandRunner.run(["oauth", "clients", "remove", "not-a-uuid", "--data-dir", data.path])
        #expect(notUUID.status == 2)
        #expect(notUUID.stderr.contains("'not-a-uuid' is not a client id"), "\(notUUID.stderr)")

        let noDatabase = try await CommandRunner.run(["oauth", "clients", "list", "--data-dir", data.path])
        #expect(noDatabase.status == 2)
        #expect(noDatabase.stderr.contains("no database at"), "\(noDatabase.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data.path), "listing creates no database")

        // With a database: a refused registration adds nothing to it, an unknown id removes nothing.
        let kept = try await CommandRunner.run([
            "oauth", "clients", "add", "--name", "Kept", "--redirect-uri", "https://kept.example.com/cb", "--data-dir", data.path,
        ])
        #expect(kept.status == 0, "\(kept.stderr)")
        let refused = try await CommandRunner.run([
            "oauth", "clients", "add", "--name", "Refused", "--redirect-uri", "https://ok.example.com/cb", "--redirect-uri", "data://x/y",
            "--data-dir", data.path,
        ])
        #expect(refused.status == 2)
        let unknown = try await CommandRunner.run(["oauth", "clients", "remove", UUID().uuidString, "--data-dir", data.path])
        #expect(unknown.status == 2 && unknown.stderr.contains("no OAuth client with id"), "\(unknown.stderr)")
        let list = try await CommandRunner.run(["oauth", "clients", "list", "--json", "--data-dir", data.path])
        let names = ((json(list.stdout)["clients"] as? [[String: Any]]) ?? []).map { $0["client_name"] as? String }
        #expect(names == ["Kept"])
    }

    @Test("list shows a client's chosen name without its control characters: no escape sequence or forged line reaches the terminal")
    func hostileName() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        // A client that registered itself chose this name; here the registry is filled directly.
        let store = try await LatchkeyApplication.openStore(
            ServerConfiguration(dataDirectory: data), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let registry = OAuthClientAdministration(store: store)
        _ = try await registry.register(
            .init(
                name: "Nice\u{1B}[2J\u{1B}[31m\nffffffff-0000-0000-0000-000000000000  Bank  confidential\u{202E}",
                redirectURIs: ["https://x.example.com/cb"]))
        try await store.close()
        let list = try await CommandRunner.run(["oauth", "clients", "list", "--data-dir", data.path])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(!list.stdout.contains("\u{1B}") && !list.stdout.contains("\u{202E}"))
        #expect(list.stdout.split(separator: "\n").count == 2, "the header and one row: \(list.stdout)")
        #expect(list.stdout.contains("Nice?[2J?[31m?ffffffff"))
    }
}
