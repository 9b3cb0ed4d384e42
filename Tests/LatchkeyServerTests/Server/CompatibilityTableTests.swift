import Foundation
import Testing

@testable import LatchkeyServer

/// The README's GoTrue compatibility table says which GoTrue routes are served; this keeps it
/// true: every route the server has is in the table or its list of additions, every route the
/// table calls served is served, and none it calls not served is.
@Suite("README compatibility table")
struct CompatibilityTableTests {
    static let readme = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("README.md")

    /// `(served, routes, answersDisabled)` for each row of the table — `answersDisabled`: a row
    /// not served whose routes answer GoTrue's error for the feature being off (its differences
    /// name a `…_disabled` code) — and the routes named in the additions paragraph.
    static func table() throws -> (rows: [(served: Bool, routes: Set<String>, answersDisabled: Bool)], additions: Set<String>) {
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let start = text.range(of: "### GoTrue compatibility") else { throw TableError("no compatibility section in README.md") }
        let section = text[start.upperBound...].prefix { _ in true }
        let end = section.range(of: "\n### ")?.lowerBound ?? section.endIndex
        var rows: [(Bool, Set<String>, Bool)] = []
        var additions = Set<String>()
        for line in section[..<end].split(separator: "\n") {
            let routes = Set(line.matches(of: /`(GET|POST|PUT|DELETE|PATCH) (\/[^`?\s]*)[^`]*`/).map { "\($0.output.1) \($0.output.2)" })
            if line.hasPrefix("|") {
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count > 4, cells[3] == "yes" || cells[3] == "no" else { continue }
                let answersDisabled = cells[3] == "no" && cells[4].contains(/`[a-z0-9_]+_disabled`/)
                rows.append((cells[3] == "yes", routes, answersDisabled))
            } else {
                additions.formUnion(routes)
            }
        }
        return (rows, additions)
    }

    @Test("the table and the served routes agree")
    func tableMatchesRoutes() async throws {
        let (rows, additions) = try Self.table()
        #expect(rows.count >= 10)
        let served = try await ServiceFixture.withDependencies { dependencies in
            Set(LatchkeyApplication.routeDescriptions(dependencies).map { "\($0.method) \($0.path)" })
        }
        let listedServed = rows.filter(\.served).reduce(into: Set<String>()) { $0.formUnion($1.routes) }
        let listedNotServed = rows.filter { !$0.served }.reduce(into: Set<String>()) { $0.formUnion($1.routes) }
        // Routes GoTrue has that answer its "disabled" errors are served, so the table calls them "no".
        let disabledAnswers = rows.filter(\.answersDisabled).reduce(into: Set<String>()) { $0.formUnion($1.routes) }
        #expect(disabledAnswers.contains("POST /sso"))
        #expect(listedServed.subtracting(served).isEmpty, "listed as served but not served: \(listedServed.subtracting(served).sorted())")
        let wronglyServed = listedNotServed.intersection(served).subtracting(disabledAnswers)
        #expect(wronglyServed.isEmpty, "listed as not served but served: \(wronglyServed.sorted())")
        let unlisted = served.subtracting(listedServed).subtracting(listedNotServed).subtracting(additions)
        #expect(unlisted.isEmpty, "served but missing from the README table: \(unlisted.sorted())")
    }

    struct TableError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
