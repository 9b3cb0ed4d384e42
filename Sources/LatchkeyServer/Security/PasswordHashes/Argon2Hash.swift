import Foundation

#if canImport(CArgon2)
import CArgon2
#endif

/// A password hash made by Argon2i or Argon2id (RFC 9106), in the PHC string form GoTrue reads:
/// `$argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>`, salt and hash in unpadded
/// standard base64 (as argon2-cffi, libargon2's `argon2_encodedlen` form, Auth0, Clerk and
/// Keycloak exports write them).
///
/// Parsing follows GoTrue's `ParseArgon2Hash` (only `argon2i` and `argon2id`, only version 19,
/// no `keyid` or `data`). On top of it the cost is bounded so that checking one stored hash
/// cannot take the server down: at most ``maximumMemoryKiB`` of memory, ``maximumIterations``
/// passes, ``maximumParallelism`` lanes, and ``maximumWork`` KiB-passes in all. A hash beyond
/// them is refused when it is given (`POST /admin/users`, the imports), never at sign-in.
///
/// The check runs libargon2, the reference implementation, with every lane on the calling
/// thread (the server's hashing pool); the result is the same as with one thread per lane.
struct Argon2Hash: Sendable, Equatable {
    static let prefix = "$argon2"

    enum Variant: String, Sendable {
        case argon2i
        case argon2id
    }

    var variant: Variant
    /// Memory in KiB (Argon2's m).
    var memoryKiB: Int
    /// Passes over the memory (Argon2's t).
    var iterations: Int
    /// Lanes (Argon2's p).
    var parallelism: Int
    var salt: [UInt8]
    var hash: [UInt8]

    /// The most memory one check may use: 256 MiB (argon2-cffi's default is 64 MiB; GoTrue's
    /// own limit, 1 GiB, would let a few concurrent sign-ins exhaust a small server).
    static let maximumMemoryKiB = 256 * 1024
    /// The most passes (GoTrue's limit).
    static let maximumIterations = 20
    /// The most lanes (GoTrue's limit).
    static let maximumParallelism = 16
    /// The most memory × passes, in KiB-passes: 256 MiB four times, 64 MiB sixteen times.
    static let maximumWork = 1 << 20
    /// libargon2's shortest salt.
    static let minimumSaltLength = 8
    /// libargon2's shortest output, and a bound on the longest accepted.
    static let hashLengths = 4...1024

    init(variant: Variant, memoryKiB: Int, iterations: Int, parallelism: Int, salt: [UInt8], hash: [UInt8]) {
        self.variant = variant
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
        self.salt = salt
        self.hash = hash
    }

    /// Parses `text`: 400-class `.malformed` for a string that is not an Argon2 hash, 422-class
    /// `.unsupported` for a well-formed one the server will not verify (argon2d, version 16,
    /// `keyid` or `data`, a cost above the limits).
    init(parsing text: String) throws(PasswordHashError) {
        let sections = text.split(separator: "$", omittingEmptySubsequences: false)
        // "", algorithm, v=…, parameters, salt, hash
        guard sections.count == 6, sections[0].isEmpty, sections[2].hasPrefix("v=") else {
            throw .malformed("password_hash is not an argon2 hash in the form $argon2id$v=19$m=…,t=…,p=…$salt$hash")
        }
        switch sections[1] {
        case "argon2i": variant = .argon2i
        case "argon2id": variant = .argon2id
        case "argon2d": throw .unsupported("argon2d password hashes are not supported; argon2i and argon2id are")
        default: throw .malformed("password_hash is not an argon2i or argon2id hash")
        }
        switch sections[2] {
        case "v=19": break
        case "v=16": throw .unsupported("argon2 hash uses version 16; only version 19 is supported")
        default: throw .malformed("argon2 hash has an invalid version")
        }
        var values: [String: Substring] = [:]
        for pair in sections[3].split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, values[String(parts[0])] == nil else { throw .malformed("argon2 hash has invalid parameters") }
            values[String(parts[0])] = parts[1]
        }
        if values["keyid"] != nil { throw .unsupported("argon2 hashes with the keyid parameter are not supported") }
        if values["data"] != nil { throw .unsupported("argon2 hashes with the data parameter are not supported") }
        guard Set(values.keys) == ["m", "t", "p"] else { throw .malformed("argon2 hash needs exactly the m, t and p parameters") }
        func count(_ name: String, maximum: Int, _ what: String) throws(PasswordHashError) -> Int {
            guard let text = values[name], !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber),
                text.count <= 10, let value = Int(text), value > 0
            else { throw .malformed("argon2 hash has an invalid \(name) parameter (a positive integer)") }
            guard value <= maximum else {
                throw .unsupported("argon2 hash has \(name)=\(value) (\(what)), above this server's limit of \(maximum)")
            }
            return value
        }
        memoryKiB = try count("m", maximum: Self.maximumMemoryKiB, "memory in KiB")
        iterations = try count("t", maximum: Self.maximumIterations, "passes")
        parallelism = try count("p", maximum: Self.maximumParallelism, "lanes")
        guard memoryKiB >= 8 * parallelism else { throw .malformed("argon2 hash has m=\(memoryKiB), below 8 KiB per lane") }
        guard memoryKiB * iterations <= Self.maximumWork else {
            throw .unsupported(
                "argon2 hash needs m·t = \(memoryKiB * iterations) KiB-passes, above this server's limit of \(Self.maximumWork) (such as 256 MiB × 4 or 64 MiB × 16)"
            )
        }
        salt = try Self.bytes(sections[4], "salt")
        hash = try Self.bytes(sections[5], "hash")
        guard salt.count >= Self.minimumSaltLength else {
            throw .unsupported("argon2 hash has a \(salt.count)-byte salt; the reference implementation needs at least \(Self.minimumSaltLength)")
        }
        guard Self.hashLengths.contains(hash.count) else {
            throw .malformed("argon2 hash is \(hash.count) bytes long; \(Self.hashLengths.lowerBound) to \(Self.hashLengths.upperBound) are accepted")
        }
    }

    /// Unpadded standard base64 (padding is accepted too, as argon2 libraries differ).
    private static func bytes(_ text: Substring, _ name: String) throws(PasswordHashError) -> [UInt8] {
        var padded = String(text)
        while padded.hasSuffix("=") { padded.removeLast() }
        guard !padded.contains("=") else { throw .malformed("argon2 hash has invalid base64 in its \(name)") }
        padded += String(repeating: "=", count: (4 - padded.count % 4) % 4)
        guard let data = Data(base64Encoded: padded) else { throw .malformed("argon2 hash has invalid base64 in its \(name)") }
        return Array(data)
    }

    /// The PHC string of this hash (unpadded base64).
    var text: String {
        func encoded(_ bytes: [UInt8]) -> String {
            var text = Data(bytes).base64EncodedString()
            while text.hasSuffix("=") { text.removeLast() }
            return text
        }
        return "$\(variant.rawValue)$v=19$m=\(memoryKiB),t=\(iterations),p=\(parallelism)$\(encoded(salt))$\(encoded(hash))"
    }

    /// Whether this server can verify Argon2 hashes (it was built with libargon2).
    static var isAvailable: Bool {
        #if canImport(CArgon2)
        true
        #else
        false
        #endif
    }

    /// Argon2's output for `password` with this hash's variant, cost and salt, from libargon2.
    func computed(for password: String) throws -> [UInt8] {
        try Self.derive(
            variant, password: Array(password.utf8), salt: salt, memoryKiB: memoryKiB, iterations: iterations, parallelism: parallelism,
            length: hash.count)
    }

    /// Argon2 (version 19) of `password` from libargon2, every lane on the calling thread (the
    /// result is the same as with one thread per lane). `secret` and `associatedData` are
    /// Argon2's optional K and X inputs (RFC 9106's test vectors use them; hashes do not).
    static func derive(
        _ variant: Variant, password: [UInt8], salt: [UInt8], secret: [UInt8] = [], associatedData: [UInt8] = [], memoryKiB: Int,
        iterations: Int, parallelism: Int, length: Int
    ) throws -> [UInt8] {
        #if canImport(CArgon2)
        var output = [UInt8](repeating: 0, count: length)
        var (password, salt, secret, associatedData) = (password, salt, secret, associatedData)
        let status = output.withUnsafeMutableBufferPointer { output in
            password.withUnsafeMutableBufferPointer { password in
                salt.withUnsafeMutableBufferPointer { salt in
                    secret.withUnsafeMutableBufferPointer { secret in
                        associatedData.withUnsafeMutableBufferPointer { associatedData in
                            var context = argon2_context()
                            context.out = output.baseAddress
                            context.outlen = UInt32(output.count)
                            context.pwd = password.baseAddress
                            context.pwdlen = UInt32(password.count)
                            context.salt = salt.baseAddress
                            context.saltlen = UInt32(salt.count)
                            context.secret = secret.baseAddress
                            context.secretlen = UInt32(secret.count)
                            context.ad = associatedData.baseAddress
                            context.adlen = UInt32(associatedData.count)
                            context.t_cost = UInt32(iterations)
                            context.m_cost = UInt32(memoryKiB)
                            context.lanes = UInt32(parallelism)
                            // Every lane on this thread: one check occupies one thread of the hashing pool.
                            context.threads = 1
                            context.version = UInt32(ARGON2_VERSION_13.rawValue)
                            context.flags = 0
                            return argon2_ctx(&context, variant == .argon2id ? Argon2_id : Argon2_i)
                        }
                    }
                }
            }
        }
        guard status == ARGON2_OK.rawValue else { throw Argon2Failure(code: Int(status)) }
        return output
        #else
        throw Argon2Failure(code: nil)
        #endif
    }

    /// Whether `password` gives this hash, compared in constant time.
    func matches(_ password: String) throws -> Bool {
        constantTimeEquals(try computed(for: password), hash)
    }

    /// libargon2 refused a computation (its error code), or the server was built without it.
    struct Argon2Failure: Error, CustomStringConvertible {
        var code: Int?
        var description: String { code.map { "libargon2 error \($0)" } ?? "this server was built without libargon2" }
    }
}
