import Foundation
import Testing

@testable import LatchkeyAppFlow

/// The SwiftUI code in the DocC articles cannot be compiled on Linux; what can go stale in it
/// without anyone noticing is a `switch` over an enum that gained a case. This checks every
/// such switch against the enums' cases.
@Suite("App flow: the documentation's switches are exhaustive")
struct DocumentationSwitchTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift code blocks of `path`.
    static func codeBlocks(_ path: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if let lines = current {
                    blocks.append(lines.joined(separator: "\n"))
                    current = nil
                } else if line.hasPrefix("```swift") {
                    current = []
                }
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The text of the `switch` starting at `range` up to its closing brace.
    static func switchBody(in block: String, from start: String.Index) -> String {
        var depth = 0
        var index = start
        var opened = false
        while index < block.endIndex {
            let character = block[index]
            if character == "{" {
                depth += 1
                opened = true
            } else if character == "}" {
                depth -= 1
                if opened, depth == 0 { return String(block[start...index]) }
            }
            index = block.index(after: index)
        }
        return String(block[start...])
    }

    static let routeCases = ["splash", "onboarding", "auth", "verifyEmail", "verifySecondFactor", "locked", "main"]
    static let deleteSteps = ["confirm", "enterCode", "enterSecondFactorCode", "deleted"]

    @Test(
        "every `switch` over a route or a delete-account step in AppFlow.md names every case",
        arguments: [
            "Sources/LatchkeyAppFlow/LatchkeyAppFlow.docc/AppFlow.md", "Documentation/AppFlow.md",
        ])
    func exhaustive(path: String) throws {
        guard FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path) else { return }
        var checked = 0
        for block in try Self.codeBlocks(path) {
            var search = block.startIndex
            while let found = block.range(of: "switch ", range: search..<block.endIndex) {
                search = found.upperBound
                let body = Self.switchBody(in: block, from: found.lowerBound)
                let header = body.prefix(while: { $0 != "{" })
                let cases: [String]
                if header.contains(".route") {
                    cases = Self.routeCases
                } else if header.contains(".step") {
                    cases = Self.deleteSteps
                } else {
                    continue
                }
                checked += 1
                guard !body.contains("default:") else { continue }
                for name in cases {
                    #expect(body.contains("case .\(name)") || body.contains(", .\(name)"), "\(path): a switch misses .\(name):\n\(body)")
                }
            }
        }
        if path.hasPrefix("Sources") { #expect(checked >= 2, "the switches were found") }
    }

    @Test("the cases this test knows are the enums' cases")
    func casesAreCurrent() {
        // A new route or step must be added above (and to the documentation): this switch does
        // not compile without it.
        for route in [LaunchRoute.splash, .onboarding, .auth(.login), .verifyEmail, .verifySecondFactor, .locked, .main] {
            switch route {
            case .splash, .onboarding, .auth, .verifyEmail, .verifySecondFactor, .locked, .main: break
            }
        }
        for step in [DeleteAccountModel.Step.confirm, .enterCode, .enterSecondFactorCode, .deleted] {
            switch step {
            case .confirm, .enterCode, .enterSecondFactorCode, .deleted: break
            }
        }
        #expect(Self.routeCases.count == 7 && Self.deleteSteps.count == 4)
    }
}
