/// Why ``CBORDecoder`` refused its input. Never carries the input itself.
package enum CBORError: Error, Hashable, Sendable {
    /// The input ended inside an item.
    case truncated
    /// A declared length (string bytes, array or map count) is larger than the bytes left.
    case lengthExceedsInput
    /// Additional information 28, 29 or 30: reserved, not well-formed (RFC 8949 §3).
    case reservedAdditionalInformation
    /// An indefinite-length string, array or map: WebAuthn's CBOR is definite only.
    case indefiniteLength
    /// A "break" stop code outside an indefinite-length item.
    case unexpectedBreak
    /// A tagged item (major type 6): not used by WebAuthn.
    case unsupportedTag
    /// A half, single or double precision float: not used by WebAuthn.
    case unsupportedFloat
    /// A simple value other than false, true, null and undefined, or a two-byte simple value
    /// below 32 (not well-formed).
    case unsupportedSimpleValue
    /// A text string whose bytes are not valid UTF-8.
    case invalidUTF8
    /// The same key twice in one map.
    case duplicateMapKey
    /// Arrays and maps nested deeper than the decoder allows.
    case nestingTooDeep
    /// Bytes left after the item where the caller asked for exactly one whole item.
    case trailingBytes
}
