import Foundation

/// Columns aligned with spaces, for listings (`mfa list`).
enum TextTable {
    /// `header` and `rows` as lines, each column as wide as its widest cell; the last column is
    /// not padded.
    static func render(header: [String], rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }
}
