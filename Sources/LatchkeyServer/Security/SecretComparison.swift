/// Compares two secrets (or hashes of secrets) in time that depends only on their lengths.
@inline(never)
func constantTimeEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for (a, b) in zip(lhs, rhs) {
        difference |= a ^ b
    }
    return difference == 0
}

/// String form of ``constantTimeEquals(_:_:)`` over UTF-8 bytes.
func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    constantTimeEquals(Array(lhs.utf8), Array(rhs.utf8))
}
