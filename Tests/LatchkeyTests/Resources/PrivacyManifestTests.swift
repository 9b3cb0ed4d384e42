import Foundation
import Testing

@testable import Latchkey

/// The privacy manifests of `Latchkey` and `LatchkeyAppFlow` ship as resources and declare
/// exactly the required-reason API categories the libraries' sources use — no more (a reason
/// App Review would question), no fewer (an upload rejected with ITMS-91053).
@Suite("Privacy manifests")
struct PrivacyManifestTests {
    /// Apple's required-reason API categories, each with source patterns that use it.
    static let categories: [(category: String, patterns: [String])] = [
        ("NSPrivacyAccessedAPICategoryUserDefaults", ["UserDefaults"]),
        (
            "NSPrivacyAccessedAPICategoryFileTimestamp",
            [
                "stat(", "fstat(", "lstat(", "fstatat(", "getattrlist", ".modificationDate", ".creationDate", "contentModificationDateKey",
                "creationDateKey",
            ]
        ),
        ("NSPrivacyAccessedAPICategorySystemBootTime", ["systemUptime", "mach_absolute_time"]),
        ("NSPrivacyAccessedAPICategoryDiskSpace", ["volumeAvailableCapacity", "statfs(", "statvfs("]),
        ("NSPrivacyAccessedAPICategoryActiveKeyboards", ["activeInputModes"]),
    ]

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The categories a manifest declares, with their reasons.
    static func declared(in data: Data) throws -> [String: [String]] {
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(plist["NSPrivacyTracking"] as? Bool == false)
        #expect((plist["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true)
        let types = try #require(plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        var result: [String: [String]] = [:]
        for entry in types {
            let category = try #require(entry["NSPrivacyAccessedAPIType"] as? String)
            result[category] = try #require(entry["NSPrivacyAccessedAPITypeReasons"] as? [String])
        }
        return result
    }

    /// The categories the Swift sources of `target` use (comments aside).
    static func used(by target: String) throws -> Set<String> {
        let folder = packageRoot.appendingPathComponent("Sources/\(target)")
        var code = ""
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            code += try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
        }
        return Set(categories.filter { $0.patterns.contains { code.contains($0) } }.map(\.category))
    }

    @Test("Latchkey's manifest is in its resource bundle and declares UserDefaults (CA92.1, 1C8F.1) and file timestamps (C617.1)")
    func latchkey() throws {
        let url = try #require(Bundle.module.url(forResource: "PrivacyInfo", withExtension: "xcprivacy"), "shipped as a resource")
        let declared = try Self.declared(in: Data(contentsOf: url))
        #expect(
            declared == [
                "NSPrivacyAccessedAPICategoryUserDefaults": ["CA92.1", "1C8F.1"],
                "NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"],
            ])
        #expect(Set(declared.keys) == (try Self.used(by: "Latchkey")), "declared categories match what the sources call")
    }

    @Test("LatchkeyAppFlow's manifest declares UserDefaults (CA92.1, 1C8F.1) and file timestamps (C617.1), what its sources use")
    func appFlow() throws {
        let file = Self.packageRoot.appendingPathComponent("Sources/LatchkeyAppFlow/Resources/PrivacyInfo.xcprivacy")
        let declared = try Self.declared(in: Data(contentsOf: file))
        #expect(
            declared == [
                "NSPrivacyAccessedAPICategoryUserDefaults": ["CA92.1", "1C8F.1"],
                "NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"],
            ])
        #expect(Set(declared.keys) == (try Self.used(by: "LatchkeyAppFlow")))
    }
}
