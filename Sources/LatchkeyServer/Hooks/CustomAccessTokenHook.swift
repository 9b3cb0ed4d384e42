import Foundation
import LatchkeyWire
import Logging

/// GoTrue's custom access token hook (`customize-access-token`): the claims of every access
/// token issued are sent to the hook with the user's ID and how they signed in, and the token
/// is signed with the claims the hook answers, once they pass GoTrue's checks (its minimum
/// viable token schema: the required claims present, each known claim of its type).
struct CustomAccessTokenHook: Sendable {
    let dispatcher: any HookDispatcher

    /// The claims the hook wants in the token for `claims`, checked.
    func claims(for claims: AccessTokenClaims, userID: UUID, authenticationMethod: String) async throws(AuthError) -> [String: JSONValue] {
        let payload: Data
        do {
            let encoder = JSONEncoder()
            // JWT times are seconds since 1970 (NumericDate), as JWTKit writes them.
            encoder.dateEncodingStrategy = .secondsSince1970
            let encodedClaims = try JSONDecoder().decode(JSONValue.self, from: encoder.encode(claims))
            let input: JSONValue = .object([
                "metadata": HookMetadata(name: "customize-access-token", now: dispatcher.clock.now()).json,
                "user_id": .string(userID.lowercasedString),
                "claims": encodedClaims,
                "authentication_method": .string(authenticationMethod),
            ])
            payload = try encoder.encode(input)
        } catch {
            throw AuthError.hookFailed("Error marshaling JSON input.")
        }
        guard let answer = try await dispatcher.dispatch(payload) else {
            throw AuthError.hookFailed("output claims field is missing")
        }
        guard case .object(let output)? = try? JSONDecoder().decode(JSONValue.self, from: answer) else {
            throw AuthError.hookFailed("Error unmarshaling JSON output.")
        }
        guard let claimsValue = output["claims"] else { throw AuthError.hookFailed("output claims field is missing") }
        guard case .object(let newClaims) = claimsValue else { throw AuthError.hookFailed("Error unmarshaling JSON output.") }
        try Self.validate(newClaims)
        return newClaims
    }

    /// The claims every token must keep, as GoTrue's schema requires them.
    static let requiredClaims = ["aud", "exp", "iat", "sub", "email", "phone", "role", "aal", "session_id", "is_anonymous"]

    /// Refuses claims GoTrue's schema refuses, with a 500 naming each problem.
    static func validate(_ claims: [String: JSONValue]) throws(AuthError) {
        var problems: [String] = []
        for name in requiredClaims where claims[name] == nil { problems.append("(root): \(name) is required") }
        for (name, value) in claims.sorted(by: { $0.key < $1.key }) {
            guard let expected = expectedType[name], !expected.accepts(value) else { continue }
            problems.append("\(name): Invalid type. Expected: \(expected.description)")
        }
        guard problems.isEmpty else {
            throw AuthError.hookFailed(
                "output claims do not conform to the expected schema: \n" + problems.map { "- \($0)\n" }.joined())
        }
    }

    private enum ClaimType {
        case string, integer, object, stringOrArray, methods

        func accepts(_ value: JSONValue) -> Bool {
            switch (self, value) {
            case (.string, .string), (.object, .object), (.stringOrArray, .string), (.stringOrArray, .array): true
            case (.integer, .number(let number)): number.rounded(.towardZero) == number
            case (.methods, .array(let entries)):
                entries.allSatisfy {
                    switch $0 {
                    case .string, .object: true
                    default: false
                    }
                }
            default: false
            }
        }

        var description: String {
            switch self {
            case .string: "string"
            case .integer: "integer"
            case .object: "object"
            case .stringOrArray: "string/array"
            case .methods: "array of strings or objects"
            }
        }
    }

    private static let expectedType: [String: ClaimType] = [
        "aud": .stringOrArray, "exp": .integer, "jti": .string, "iat": .integer, "iss": .string, "nbf": .integer, "sub": .string,
        "email": .string, "phone": .string, "app_metadata": .object, "user_metadata": .object, "role": .string, "aal": .string,
        "amr": .methods, "session_id": .string, "client_id": .string,
    ]
}

/// The `metadata` of every hook's input: a fresh ID, the time, the hook's name and, when
/// known, the client's address.
struct HookMetadata {
    var name: String
    var now: Date
    var ipAddress: String? = nil

    var json: JSONValue {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var fields: [String: JSONValue] = [
            "uuid": .string(UUID().uuidString.lowercased()), "time": .string(formatter.string(from: now)), "name": .string(name),
        ]
        if let ipAddress, !ipAddress.isEmpty { fields["ip_address"] = .string(ipAddress) }
        return .object(fields)
    }
}
