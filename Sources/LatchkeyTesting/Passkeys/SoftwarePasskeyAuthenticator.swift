import Crypto
import Foundation
public import Latchkey

/// A passkey authenticator in memory, for tests: it creates ES256 passkeys with `none`
/// attestation, keeps them as resident (discoverable) credentials per relying party, and signs
/// in with them, as the platform authenticator does on a device. Set it as
/// ``Latchkey/SessionManagerConfiguration/passkeyAuthenticator`` to register and sign in with
/// passkeys against ``TestAuthServer`` (started with passkeys on).
///
/// ```swift
/// let authenticator = SoftwarePasskeyAuthenticator()
/// var configuration = SessionManagerConfiguration()
/// configuration.passkeyAuthenticator = authenticator
/// // …sign up, then:
/// _ = try await manager.passkeys.register(name: "Test device")
/// try await manager.signOut()
/// _ = try await manager.account.signInWithPasskey()
///
/// await authenticator.setResponse(.cancel)  // the person closes the sheet
/// ```
///
/// The client data names the origin `https://` + the relying party id, as Apple's platform
/// authenticator writes it for an app; pass `origin` for another. Each passkey's signature
/// counter goes up by one at every sign-in (``countsSignatures``), or stays 0 as synced
/// passkeys' do.
public actor SoftwarePasskeyAuthenticator: PasskeyAuthenticator {
    /// How the "person" answers the next requests.
    public enum Response: Sendable, Hashable {
        /// Approves: creates or signs.
        case approve
        /// Closes the sheet: ``Latchkey/PasskeyAuthenticatorError/cancelled``.
        case cancel
        /// The authenticator refuses: ``Latchkey/PasskeyAuthenticatorError/failed(reason:)``.
        case refuse
    }

    /// A passkey the authenticator holds. The private key stays inside the authenticator.
    public struct Credential: Sendable, Hashable {
        /// The credential id the server knows the passkey by.
        public let id: Data
        /// The relying party it belongs to, e.g. `example.com`.
        public let relyingPartyID: String
        /// The user handle the server gave it (the account's id, as UTF-8 bytes, on Latchkey).
        public let userHandle: Data
        /// The account name shown when picking it (the email address).
        public let userName: String
        /// Its signature counter: the value the last sign-in sent.
        public fileprivate(set) var signCount: UInt32
    }

    /// How the next requests are answered. Default ``Response/approve``.
    public private(set) var response: Response
    /// The origin written in the client data; `nil`: `https://` + the relying party id.
    public let origin: String?
    /// Whether the authenticator verifies the user (sets the UV flag). Default `true`, as Face
    /// ID does; with `false` a request that requires verification is refused.
    public private(set) var verifiesUser = true
    /// Whether the passkeys are backup eligible and backed up (the BE and BS flags), as synced
    /// passkeys are. Default `false`.
    public let backedUp: Bool
    /// Whether each sign-in advances the passkey's signature counter. Default `true`; `false`
    /// sends 0 every time, as iCloud Keychain passkeys do.
    public let countsSignatures: Bool
    /// How many passkeys were created.
    public private(set) var registrations = 0
    /// How many sign-ins were signed.
    public private(set) var assertions = 0
    /// How many requests were cancelled or refused.
    public private(set) var declined = 0

    private var credentials: [Credential] = []
    private var keys: [Data: P256.Signing.PrivateKey] = [:]

    /// An authenticator with no passkeys.
    /// - Parameters:
    ///   - origin: The origin for the client data; `nil`: `https://` + the relying party id.
    ///   - backedUp: Sets the BE and BS flags, as a synced passkey does.
    ///   - countsSignatures: Whether sign-ins advance the signature counter.
    public init(origin: String? = nil, backedUp: Bool = false, countsSignatures: Bool = true, response: Response = .approve) {
        self.origin = origin
        self.backedUp = backedUp
        self.countsSignatures = countsSignatures
        self.response = response
    }

    /// Answers the next requests with `response`.
    public func setResponse(_ response: Response) {
        self.response = response
    }

    /// Whether the authenticator verifies the user.
    public func setVerifiesUser(_ verifies: Bool) {
        verifiesUser = verifies
    }

    /// The passkeys held for `relyingPartyID`, oldest first.
    public func credentials(for relyingPartyID: String) -> [Credential] {
        credentials.filter { $0.relyingPartyID == relyingPartyID }
    }

    /// Forgets the passkey `id` (as a person deleting it in the Passwords app).
    public func removeCredential(id: Data) {
        credentials.removeAll { $0.id == id }
        keys[id] = nil
    }

    // MARK: - PasskeyAuthenticator

    public func createPasskey(_ options: PasskeyCreationOptions) async throws -> PasskeyRegistration {
        try checkResponse(userVerification: options.userVerification)
        guard options.algorithms.isEmpty || options.algorithms.contains(-7) else {
            throw PasskeyAuthenticatorError.failed(reason: "the relying party does not accept ES256")
        }
        let rpID = options.relyingParty.id
        if credentials.contains(where: { $0.relyingPartyID == rpID && options.excludedCredentialIDs.contains($0.id) }) {
            throw PasskeyAuthenticatorError.credentialExcluded
        }
        let key = P256.Signing.PrivateKey()
        let id = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        // A resident credential replaces the one the same account had at the relying party.
        for old in credentials where old.relyingPartyID == rpID && old.userHandle == options.user.id { removeCredential(id: old.id) }
        credentials.append(Credential(id: id, relyingPartyID: rpID, userHandle: options.user.id, userName: options.user.name, signCount: 0))
        keys[id] = key
        registrations += 1

        let clientData = clientDataJSON(type: "webauthn.create", challenge: options.challenge, rpID: rpID)
        let authenticatorData = authenticatorData(rpID: rpID, signCount: 0, attested: (id, key.publicKey))
        let attestationObject = SoftwareCBOR.map([
            (SoftwareCBOR.text("fmt"), SoftwareCBOR.text("none")), (SoftwareCBOR.text("attStmt"), SoftwareCBOR.map([])),
            (SoftwareCBOR.text("authData"), SoftwareCBOR.bytes(authenticatorData)),
        ])
        return PasskeyRegistration(
            credentialID: id, clientDataJSON: clientData, attestationObject: Data(attestationObject), transports: ["internal", "hybrid"],
            attachment: "platform")
    }

    public func assertPasskey(_ options: PasskeyRequestOptions) async throws -> PasskeyAssertion {
        try checkResponse(userVerification: options.userVerification)
        let rpID = options.relyingPartyID
        let candidates = credentials.filter {
            $0.relyingPartyID == rpID && (options.allowedCredentialIDs.isEmpty || options.allowedCredentialIDs.contains($0.id))
        }
        // The person picks the newest passkey.
        guard let picked = candidates.last, let index = credentials.firstIndex(of: picked), let key = keys[picked.id] else {
            throw PasskeyAuthenticatorError.noCredentials
        }
        if countsSignatures { credentials[index].signCount += 1 }
        assertions += 1
        let clientData = clientDataJSON(type: "webauthn.get", challenge: options.challenge, rpID: rpID)
        let authenticatorData = authenticatorData(rpID: rpID, signCount: credentials[index].signCount, attested: nil)
        let signature = try key.signature(for: authenticatorData + SHA256.hash(data: clientData))
        return PasskeyAssertion(
            credentialID: picked.id, clientDataJSON: clientData, authenticatorData: authenticatorData,
            signature: signature.derRepresentation, userHandle: picked.userHandle, attachment: "platform")
    }

    // MARK: - Bytes

    private func checkResponse(userVerification: PasskeyUserVerification) throws {
        switch response {
        case .approve:
            if userVerification == .required && !verifiesUser {
                declined += 1
                throw PasskeyAuthenticatorError.failed(reason: "user verification is required and this authenticator does not verify")
            }
        case .cancel:
            declined += 1
            throw PasskeyAuthenticatorError.cancelled
        case .refuse:
            declined += 1
            throw PasskeyAuthenticatorError.failed(reason: "the software authenticator was told to refuse")
        }
    }

    /// The client data (WebAuthn §5.8.1), its members in the specification's order.
    private func clientDataJSON(type: String, challenge: Data, rpID: String) -> Data {
        let origin = self.origin ?? "https://\(rpID)"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        func quoted(_ text: String) -> String { String(decoding: (try? encoder.encode(text)) ?? Data("\"\"".utf8), as: UTF8.self) }
        let challengeText = challenge.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return Data(#"{"type":\#(quoted(type)),"challenge":\#(quoted(challengeText)),"origin":\#(quoted(origin)),"crossOrigin":false}"#.utf8)
    }

    /// The authenticator data (WebAuthn §6.1): the relying party id's hash, the flags, the
    /// counter, and for a new passkey the attested credential data with its COSE key.
    private func authenticatorData(rpID: String, signCount: UInt32, attested: (id: Data, key: P256.Signing.PublicKey)?) -> Data {
        var flags: UInt8 = 0x01  // UP
        if verifiesUser { flags |= 0x04 }  // UV
        if backedUp { flags |= 0x08 | 0x10 }  // BE, BS
        if attested != nil { flags |= 0x40 }  // AT
        var data = Data(SHA256.hash(data: Data(rpID.utf8)))
        data.append(flags)
        data.append(contentsOf: withUnsafeBytes(of: signCount.bigEndian, Array.init))
        if let (id, key) = attested {
            data.append(Data(count: 16))  // AAGUID: none
            data.append(contentsOf: withUnsafeBytes(of: UInt16(id.count).bigEndian, Array.init))
            data.append(id)
            let point = Array(key.x963Representation)  // 0x04 ‖ x ‖ y
            data.append(
                contentsOf: SoftwareCBOR.map([
                    (SoftwareCBOR.int(1), SoftwareCBOR.int(2)),  // kty: EC2
                    (SoftwareCBOR.int(3), SoftwareCBOR.int(-7)),  // alg: ES256
                    (SoftwareCBOR.int(-1), SoftwareCBOR.int(1)),  // crv: P-256
                    (SoftwareCBOR.int(-2), SoftwareCBOR.bytes(Data(point[1..<33]))),
                    (SoftwareCBOR.int(-3), SoftwareCBOR.bytes(Data(point[33..<65]))),
                ]))
        }
        return data
    }
}
