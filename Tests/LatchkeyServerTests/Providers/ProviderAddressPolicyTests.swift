import Foundation
import Hummingbird
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// No server-side request forgery through a provider's URL.
@Suite("Provider address policy")
struct ProviderAddressPolicyTests {
    @Test(
        "loopback, private, link-local and metadata addresses are refused; http too",
        arguments: [
            "https://127.0.0.1/", "https://10.1.2.3/", "https://172.16.0.1/", "https://192.168.1.1/", "https://169.254.169.254/latest",
            "https://[::1]/", "https://[fd00::1]/", "https://[::ffff:10.0.0.1]/", "https://0.0.0.0/", "http://93.184.216.34/",
            "ftp://93.184.216.34/", "https://user:pass@93.184.216.34/",
        ])
    func refused(_ text: String) async throws {
        let policy = ProviderAddressPolicy(allowsLoopback: false)
        #expect(await policy.refusal(for: try #require(URL(string: text))) != nil)
    }

    @Test(
        "IPv6 addresses that reach a private or loopback IPv4 address, and site-local ones, are refused",
        arguments: [
            "https://[::7f00:1]/", "https://[::a00:1]/", "https://[64:ff9b::a9fe:a9fe]/", "https://[64:ff9b::a00:1]/",
            "https://[2002:a00:1::1]/", "https://[2002:7f00:1::]/", "https://[fec0::1]/", "https://[2001:db8::1]/",
        ])
    func embeddedPrivateV4(_ text: String) async throws {
        let policy = ProviderAddressPolicy(allowsLoopback: false)
        #expect(await policy.refusal(for: try #require(URL(string: text))) != nil)
    }

    @Test("an IPv6 address embedding a public IPv4 address is allowed")
    func embeddedPublicV4() async throws {
        let policy = ProviderAddressPolicy(allowsLoopback: false)
        for text in ["https://[64:ff9b::5db8:d822]/", "https://[2002:5db8:d822::1]/", "https://[2606:2800:220:1::1]/"] {
            #expect(await policy.refusal(for: try #require(URL(string: text))) == nil, "\(text)")
        }
    }

    @Test("the request goes to the address that was checked: the host is not resolved again (DNS rebinding)")
    func connectsToCheckedAddress() async throws {
        let router = Router()
        router.get("/keys") { _, _ in "checked" }
        let server = try await LoopbackHTTPServer.start(router, label: "checked-address")
        let port = try #require(URL(string: server.baseURL)?.port)
        // The name exists only in the policy's resolver: a second resolution by the system fails.
        let policy = ProviderAddressPolicy(allowsLoopback: true) { name in name == "idp.rebinding.invalid" ? [.v4(0x7F00_0001)] : [] }
        // A loaded machine may take more than the default 10 s to answer; the test is about where
        // the request goes, not how fast.
        let http = GuardedProviderHTTP(policy: policy, timeout: .seconds(120))
        let url = try #require(URL(string: "http://idp.rebinding.invalid:\(port)/keys"))
        let response: ProviderResponse
        do {
            response = try await http.send(ProviderRequest(url: url))
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "checked")
    }

    @Test("a public https address is allowed")
    func publicAddress() async throws {
        #expect(await ProviderAddressPolicy(allowsLoopback: false).refusal(for: try #require(URL(string: "https://93.184.216.34/"))) == nil)
    }

    @Test("the development switch allows loopback over http, and still no private network")
    func loopbackSwitch() async throws {
        let policy = ProviderAddressPolicy(allowsLoopback: true)
        #expect(await policy.refusal(for: try #require(URL(string: "http://127.0.0.1:8080/"))) == nil)
        #expect(await policy.refusal(for: try #require(URL(string: "http://[::1]:8080/"))) == nil)
        #expect(await policy.refusal(for: try #require(URL(string: "https://10.0.0.1/"))) != nil)
        #expect(await policy.refusal(for: try #require(URL(string: "http://93.184.216.34/"))) != nil)
    }

    @Test("a provider URL over http is refused at start unless it is loopback and the switch is on")
    func configuration() throws {
        var settings = ExternalProviderSettings()
        settings.keycloak = ProviderSettings(enabled: true, clientIDs: ["a"], url: "http://127.0.0.1:9000")
        #expect(throws: ConfigurationError.self) { try settings.validate() }
        settings.allowLoopbackProviders = true
        try settings.validate()
        settings.keycloak.url = "http://idp.example.com"
        #expect(throws: ConfigurationError.self) { try settings.validate() }
        // Without a URL GoTrue starts and refuses Keycloak sign-ins at use: a warning at start
        // (StartsLikeGoTrueTests), not a refusal.
        settings.keycloak.url = nil
        try settings.validate()
    }
}
