import Foundation
import Testing

@testable import LatchkeyServer

@Suite("Firebase hash config")
struct FirebaseHashConfigTests {
    static let console = """
        hash_config {
          algorithm: SCRYPT,
          base64_signer_key: jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==,
          base64_salt_separator: Bw==,
          rounds: 8,
          mem_cost: 14,
        }
        """

    static var published: FirebaseHashConfig {
        get throws { try FirebaseHashConfig(parsing: console) }
    }

    @Test("the console's text, a JSON object and the Admin SDK's names give the same parameters")
    func forms() throws {
        let expected = try Self.published
        #expect(expected.rounds == 8 && expected.memoryCost == 14 && expected.saltSeparator == [7] && expected.signerKey.count == 64)
        let json = """
            {"algorithm": "SCRYPT", "base64_signer_key": "\(Data(expected.signerKey).base64EncodedString())",
             "base64_salt_separator": "Bw==", "rounds": 8, "mem_cost": 14}
            """
        #expect(try FirebaseHashConfig(parsing: json) == expected)
        let sdk = """
            {"hash": {"algorithm": "SCRYPT", "signerKey": "\(Data(expected.signerKey).base64EncodedString())", "saltSeparator": "Bw==", "rounds": 8, "memoryCost": 14}}
            """
        #expect(try FirebaseHashConfig(parsing: sdk) == expected)
    }

    @Test("missing or wrong parameters are refused, and the message never holds the key")
    func refusals() throws {
        let key = "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="
        let broken = [
            Self.console.replacingOccurrences(of: "SCRYPT", with: "BCRYPT"),
            Self.console.replacingOccurrences(of: "rounds: 8", with: "rounds: 0"),
            Self.console.replacingOccurrences(of: "mem_cost: 14", with: "mem_cost: 40"),
            Self.console.replacingOccurrences(of: "mem_cost: 14,", with: ""),
            Self.console.replacingOccurrences(of: key, with: "not*base64"),
            Self.console.replacingOccurrences(of: "base64_signer_key: \(key),", with: ""),
            "just some words",
        ]
        for text in broken {
            let error = #expect(throws: FirebaseHashConfig.Invalid.self) { try FirebaseHashConfig(parsing: text) }
            #expect(!"\(String(describing: error))".contains(key) && !"\(String(describing: error))".contains("not*base64"))
        }
    }

    @Test(
        "a config whose rounds and mem_cost are each in bounds but need more than 256 MiB together is refused, as a sign-in would refuse its hashes")
    func memoryProductRefused() throws {
        let costly = Self.console.replacingOccurrences(of: "mem_cost: 14", with: "mem_cost: 20").replacingOccurrences(
            of: "rounds: 8", with: "rounds: 16")
        let error = #expect(throws: FirebaseHashConfig.Invalid.self) { try FirebaseHashConfig(parsing: costly) }
        #expect("\(String(describing: error))".contains("256 MiB"))
        // The largest that fits is accepted, and its hashes parse at sign-in.
        let largest = Self.console.replacingOccurrences(of: "mem_cost: 14", with: "mem_cost: 17")
        let config = try FirebaseHashConfig(parsing: largest)
        let published = FirebaseScryptHashTests.published
        let hash = try #require(config.hash(passwordHash: published.hash, salt: published.salt))
        #expect(try FirebaseScryptHash(parsing: hash.text) == hash)
    }

    @Test("an exported account's hash and salt become the published stored hash")
    func storedHash() throws {
        let published = FirebaseScryptHashTests.published
        let hash = try #require(try Self.published.hash(passwordHash: published.hash, salt: published.salt))
        #expect(hash.text == FirebaseScryptHashTests.publishedText)
        #expect(try hash.matches(published.password))
        #expect(try Self.published.hash(passwordHash: "", salt: published.salt) == nil)
        #expect(try Self.published.hash(passwordHash: "***", salt: published.salt) == nil)
    }
}
