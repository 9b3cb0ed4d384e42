import Foundation
import Testing

@testable import LatchkeyQRCode

/// Encodes a set of strings and has independent software check the result (Support/decode_qr.py):
/// the zxing-cpp decoder reads the matrix and every rendering back, and the segno encoder
/// produces the identical matrix for the same version, level and mask.
///
/// Needs `python3` with `zxing-cpp` and `segno` (`pip install zxing-cpp==3.1.1 segno==1.6.6`,
/// as .ci/run does); without zxing-cpp the test is skipped with that note.
@Suite("Independent decoder round trip")
struct DecoderRoundTripTests {
    static let decoderAvailable = Python.canImport(["zxingcpp"])

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Support/decode_qr.py").path
    }

    /// Deterministic printable ASCII, so that capacity-filling strings are not one repeated byte.
    static func text(count: Int, seed: UInt32) -> String {
        var state = seed
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:/?&=%-._~")
        return String(
            (0..<count).map { _ in
                state = state &* 1_664_525 &+ 1_013_904_223
                return alphabet[Int(state >> 24) % alphabet.count]
            })
    }

    static var cases: [(name: String, text: String, correction: QRCode.ErrorCorrection)] {
        let otpauth =
            "otpauth://totp/Latchkey:ada.lovelace%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
            + "&issuer=Latchkey&algorithm=SHA1&digits=6&period=30"
        let longOtpauth = otpauth + "&image=" + String(repeating: "https%3A%2F%2Fexample.com%2Flogo.png", count: 4)
        let unicode = "Grüße aus Zürich, 東京から, Привет, 🔑🔐 — ünïcödé"
        let kilobyte = String(repeating: "Latchkey ✓ ", count: 77)  // 1,001 bytes
        var cases: [(String, String, QRCode.ErrorCorrection)] = []
        for level in QRCode.ErrorCorrection.allCases {
            cases.append(("single byte \(level)", "A", level))
            cases.append(("short \(level)", "hello", level))
            cases.append(("otpauth \(level)", otpauth, level))
            cases.append(("otpauth 250 bytes \(level)", String(longOtpauth.prefix(250)), level))
            cases.append(("UTF-8 \(level)", unicode, level))
            cases.append(("1000 bytes \(level)", kilobyte, level))
            cases.append(("empty \(level)", "", level))
        }
        // Every version and level, filled to capacity: every block structure of the tables.
        for level in QRCode.ErrorCorrection.allCases {
            for version in 1...40 {
                let count = SymbolCapacity.byteCapacity(version: version, correction: level)
                cases.append(("version \(version) \(level) full", text(count: count, seed: UInt32(version * 4 + level.tableIndex)), level))
            }
        }
        return cases
    }

    @Test(
        "zxing-cpp reads every code and rendering back; segno builds identical matrices",
        .enabled(if: decoderAvailable, "python3 cannot import zxingcpp: pip install zxing-cpp==3.1.1 segno==1.6.6"),
        .timeLimit(.minutes(10))
    )
    func roundTrip() async throws {
        var fixtures: [[String: Any]] = []
        for (name, text, correction) in Self.cases {
            let code = try QRCode(text, correction: correction)
            let matrix = (0..<code.size).map { y in String((0..<code.size).map { x in code[x, y] ? "1" : "0" }) }
            fixtures.append([
                "name": name, "text": text, "correction": "\(correction)", "version": code.version, "mask": code.mask,
                "matrix": matrix, "svg": code.svg(),
                "terminal": code.terminalText(),
                "terminalLightBlocks": code.terminalText(quietZone: 2, style: .lightModulesAsBlocks),
                "terminalDarkBlocks": code.terminalText(quietZone: 2, style: .darkModulesAsBlocks),
            ])
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-qr-cases-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try JSONSerialization.data(withJSONObject: fixtures).write(to: file)

        let (status, output) = try await Python.run([Self.script, file.path])
        // The summary (decoded images, identical matrices, segno's mask choices) in the log.
        print(output.split(separator: "\n").filter { !$0.hasPrefix("FAILED") }.joined(separator: "\n"))
        #expect(status == 0, "\(output)")
    }
}
