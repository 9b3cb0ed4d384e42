import Foundation
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
        settings.keycloak.url = nil
        #expect(throws: ConfigurationError.self) { try settings.validate() }
    }
}
