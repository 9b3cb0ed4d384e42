/// A QR code (model 2, ISO/IEC 18004) holding a string as UTF-8 bytes.
///
/// The encoder uses byte mode, picks the smallest version (1 to 40) whose data capacity at the
/// requested error correction level holds the text, and chooses the mask pattern with the
/// lowest penalty score of the standard's evaluation rules.
///
/// ```swift
/// let code = try QRCode("otpauth://totp/Latchkey:ada@example.com?secret=…&issuer=Latchkey")
/// let markup = code.svg()             // for a web page or an API response
/// print(code.terminalText())          // for a terminal
/// ```
///
/// Modules are addressed with `x` as the column and `y` as the row, both from the top-left
/// corner, without the quiet zone.
public struct QRCode: Sendable {
    /// The side of the symbol in modules, without the quiet zone: `17 + 4 × version`.
    public let size: Int
    /// The symbol's version, 1 (21 × 21 modules) to 40 (177 × 177 modules).
    public let version: Int
    /// The error correction level the symbol was encoded with.
    public let correction: ErrorCorrection
    /// The mask pattern applied to the data modules, 0 to 7.
    public let mask: Int
    /// The modules row by row, `true` for dark.
    private let modules: [Bool]

    /// Encodes `text` as UTF-8 bytes in the smallest version that holds it.
    ///
    /// - Parameters:
    ///   - text: The text to encode. The bytes are UTF-8 without an ECI header, which is what
    ///     phone cameras and authenticator apps read for `otpauth://` URIs.
    ///   - correction: How much of the symbol may be damaged and still read: about 7 % (`low`),
    ///     15 % (`medium`), 25 % (`quartile`) or 30 % (`high`). Higher levels need a larger symbol.
    /// - Throws: ``QRCodeError`` when the text does not fit a version 40 symbol at this level
    ///   (2,953 bytes at `low`, 2,331 at `medium`, 1,663 at `quartile`, 1,273 at `high`).
    public init(_ text: String, correction: ErrorCorrection = .medium) throws {
        try self.init(bytes: Array(text.utf8), correction: correction, mask: nil)
    }

    /// Encodes `bytes` in byte mode; `mask` forces a mask pattern (tests compare with other
    /// encoders for a given mask), `nil` chooses the one with the lowest penalty.
    init(bytes: [UInt8], correction: ErrorCorrection, mask forcedMask: Int?) throws {
        guard let version = SymbolCapacity.smallestVersion(forByteCount: bytes.count, correction: correction) else {
            throw QRCodeError(byteCount: bytes.count, correction: correction)
        }
        let data = DataCodewords.byteMode(bytes, version: version, correction: correction)
        let codewords = CodewordBlocks.interleavedWithErrorCorrection(data, version: version, correction: correction)

        var grid = ModuleGrid(version: version)
        grid.drawFunctionPatterns()
        grid.placeCodewords(codewords)

        let mask = forcedMask ?? MaskPattern.best(for: grid, correction: correction)
        grid.apply(MaskPattern(mask))
        grid.drawFormatInformation(correction: correction, mask: mask)

        self.size = grid.size
        self.version = version
        self.correction = correction
        self.mask = mask
        self.modules = grid.modules
    }

    /// Whether the module at column `x`, row `y` (`code[x, y]`) is dark. Coordinates outside the symbol (in
    /// the quiet zone) are light.
    public subscript(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }
}
