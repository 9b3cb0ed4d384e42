/// The data does not fit the largest QR code (version 40) at the requested error correction
/// level.
public struct QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// How many bytes (UTF-8) the data has.
    public let byteCount: Int
    /// The level that was requested.
    public let correction: QRCode.ErrorCorrection
    /// The most bytes a version 40 symbol holds at that level.
    public var capacity: Int { SymbolCapacity.byteCapacity(version: 40, correction: correction) }

    public var description: String {
        "\(byteCount) bytes do not fit a QR code at error correction \(correction) (at most \(capacity))"
    }
}
