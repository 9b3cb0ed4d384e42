import Foundation
import Testing

@testable import LatchkeyQRCode

@Suite("SVG and terminal renderers")
struct RenderingTests {
    /// The dark modules an SVG path of `M x y h n v1 h-n z` rectangles covers.
    static func modules(ofPath path: Substring, side: Int) -> [[Bool]] {
        var grid = Array(repeating: Array(repeating: false, count: side), count: side)
        for rectangle in path.split(separator: "M") {
            // "x yhNv1h-Nz"
            let parts = rectangle.split(whereSeparator: { " hvz".contains($0) })
            #expect(parts.count == 5, "\(rectangle)")
            guard parts.count == 5, let x = Int(parts[0]), let y = Int(parts[1]), let width = Int(parts[2]) else { continue }
            #expect(parts[3] == "1" && Int(parts[4]) == -width)
            for column in x..<x + width { grid[y][column] = true }
        }
        return grid
    }

    static func expected(_ code: QRCode, margin: Int) -> [[Bool]] {
        let side = code.size + 2 * margin
        return (0..<side).map { y in (0..<side).map { x in code[x - margin, y - margin] } }
    }

    @Test("SVG: a white background and one path whose rectangles are exactly the dark modules")
    func svg() throws {
        let code = try QRCode("otpauth://totp/Latchkey:ada@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Latchkey")
        let side = code.size + 8
        let svg = code.svg()
        #expect(
            svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(side * 4)\" height=\"\(side * 4)\" viewBox=\"0 0 \(side) \(side)\""))
        #expect(svg.contains("shape-rendering=\"crispEdges\""))
        #expect(svg.contains("<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/>"))
        #expect(svg.hasSuffix("\"/></svg>"))
        #expect(svg.components(separatedBy: "<path").count == 2)
        let path = try #require(svg.split(separator: " d=\"").last?.split(separator: "\"").first)
        #expect(Self.modules(ofPath: path, side: side) == Self.expected(code, margin: 4))

        let small = code.svg(moduleSize: 1, quietZone: 0)
        #expect(small.contains("width=\"\(code.size)\" height=\"\(code.size)\" viewBox=\"0 0 \(code.size) \(code.size)\""))
    }

    /// The two half-modules a terminal cell shows as drawn.
    static func halves(_ character: Character) -> (Bool, Bool)? {
        switch character {
        case "█": (true, true)
        case "▀": (true, false)
        case "▄": (false, true)
        case " ": (false, false)
        default: nil
        }
    }

    static func grid(ofTerminalText text: String, side: Int) -> [[Bool]] {
        var rows: [[Bool]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let cells = line.compactMap(halves)
            #expect(cells.count == side)
            rows.append(cells.map(\.0))
            rows.append(cells.map(\.1))
        }
        return rows
    }

    @Test("Terminal text, coloured: black blocks for dark modules on white, colours reset on every line")
    func terminalColored() throws {
        let code = try QRCode("hello", correction: .high)
        let text = code.terminalText()
        let side = code.size + 4
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == (side + 1) / 2 + 1)
        #expect(lines.last == "")
        for line in lines.dropLast() {
            #expect(line.hasPrefix("\u{1B}[38;5;16;48;5;231m"))
            #expect(line.hasSuffix("\u{1B}[0m"))
        }
        let stripped = text.replacingOccurrences(of: "\u{1B}[38;5;16;48;5;231m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
        var rows = Self.grid(ofTerminalText: stripped, side: side)
        #expect(rows.removeLast() == Array(repeating: false, count: side), "the half row below an odd count is light")
        #expect(rows == Self.expected(code, margin: 2))
        #expect(code.terminalText(quietZone: 2) == text)
    }

    @Test("Terminal text, plain: light or dark modules as blocks")
    func terminalPlain() throws {
        let code = try QRCode("Grüße aus 東京 🔑")
        let side = code.size + 6
        let expected = Self.expected(code, margin: 3)

        var dark = Self.grid(ofTerminalText: code.terminalText(quietZone: 3, style: .darkModulesAsBlocks), side: side)
        dark.removeLast()
        #expect(dark == expected)

        var light = Self.grid(ofTerminalText: code.terminalText(quietZone: 3, style: .lightModulesAsBlocks), side: side)
        #expect(light.removeLast() == Array(repeating: false, count: side), "below the symbol nothing is drawn")
        #expect(light == expected.map { $0.map { !$0 } })
        #expect(!code.terminalText(quietZone: 3, style: .lightModulesAsBlocks).contains("\u{1B}"))
    }
}
