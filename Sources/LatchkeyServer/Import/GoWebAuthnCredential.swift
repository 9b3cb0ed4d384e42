import Foundation
import LatchkeyWire

/// GoTrue's WebAuthn factor credential (`mfa_factors.web_authn_credential`) read into
/// Latchkey's ``FactorCredential``.
///
/// GoTrue stores go-webauthn's `webauthn.Credential` as Go's `encoding/json` writes it:
///
/// ```json
/// {"id": "<base64>", "publicKey": "<base64 COSE_Key>", "attestationType": "none",
///  "transport": ["usb"], "flags": {"userPresent": true, "userVerified": false,
///  "backupEligible": false, "backupState": false},
///  "authenticator": {"AAGUID": "<base64>", "signCount": 3, "cloneWarning": false, "attachment": ""},
///  "attestation": {…}}
/// ```
///
/// Byte slices are standard base64 with padding (Go's `[]byte`). go-webauthn before its
/// 2023-12 struct tags wrote the authenticator's fields under their Go names (`SignCount`,
/// `CloneWarning`); Go reads JSON keys case-insensitively, and so does this. The public key is
/// the COSE_Key bytes from the authenticator data, as Latchkey stores them.
enum GoWebAuthnCredential {
    /// WebAuthn's bound on a credential id (§5.8.3 of Web Authentication Level 3).
    static let maximumCredentialIDLength = 1023

    /// The credential of a verified WebAuthn factor, or why it cannot be read; `aaguid` is the
    /// factor's `web_authn_aaguid`, used when the credential names no authenticator model.
    static func factorCredential(_ text: String?, aaguid column: UUID?) throws(ImportRefusal) -> FactorCredential {
        guard let text, !text.isEmpty, text != "null" else {
            throw ImportRefusal("a WebAuthn factor without a credential (web_authn_credential is empty)")
        }
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8)) else {
            throw ImportRefusal("a WebAuthn factor whose web_authn_credential is not a JSON object")
        }
        guard let id = bytes(field(object, "id")), (1...maximumCredentialIDLength).contains(id.count) else {
            throw ImportRefusal("a WebAuthn factor whose web_authn_credential has no credential id in base64")
        }
        guard let publicKey = bytes(field(object, "publicKey")) else {
            throw ImportRefusal("a WebAuthn factor whose web_authn_credential has no publicKey in base64")
        }
        try checkPublicKey(publicKey, "a WebAuthn factor whose web_authn_credential publicKey")
        let flags = field(object, "flags")?.objectValue ?? [:]
        let authenticator = field(object, "authenticator")?.objectValue ?? [:]
        let signCount: UInt32
        switch field(authenticator, "signCount") {
        case nil, .null?: signCount = 0
        case .number(let number)?:
            guard let count = UInt32(exactly: number) else {
                throw ImportRefusal("a WebAuthn factor whose web_authn_credential signCount is out of range")
            }
            signCount = count
        default: throw ImportRefusal("a WebAuthn factor whose web_authn_credential signCount is not a number")
        }
        let written = bytes(field(authenticator, "AAGUID")).flatMap { $0.count == 16 ? UUID(bytes: $0) : nil }
        return FactorCredential(
            credentialID: id, publicKey: publicKey,
            attestationType: field(object, "attestationType")?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? "none",
            aaguid: model(written ?? column), signCount: signCount, backupEligible: field(flags, "backupEligible")?.boolValue ?? false,
            backedUp: field(flags, "backupState")?.boolValue ?? false,
            transports: field(object, "transport")?.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    /// Throws unless `key` is COSE_Key bytes this server verifies signatures with (the reason
    /// names the shape, never the bytes). `what` names the column.
    static func checkPublicKey(_ key: [UInt8], _ what: String) throws(ImportRefusal) {
        do {
            _ = try COSEKey(bytes: key)
        } catch {
            let reason: String
            if case .malformedPublicKey(let detail) = error { reason = detail } else { reason = "unreadable" }
            throw ImportRefusal("\(what) is not a COSE key this server verifies (\(reason))")
        }
    }

    /// The authenticator model, `nil` for the all-zero AAGUID authenticators send when they
    /// disclose none (as Latchkey's own registrations store it).
    static func model(_ aaguid: UUID?) -> UUID? {
        guard let aaguid, aaguid != UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) else { return nil }
        return aaguid
    }

    /// The value of `key` in `object` as Go's `encoding/json` finds it: the exact key, else one
    /// that differs only in case.
    static func field(_ object: [String: JSONValue], _ key: String) -> JSONValue? {
        if let value = object[key] { return value }
        let lowered = key.lowercased()
        return object.first { $0.key.lowercased() == lowered }?.value
    }

    /// A Go `[]byte` field: standard base64, padded (also taken unpadded or base64url); `nil`
    /// for `null`, a missing field or text that is not base64.
    static func bytes(_ value: JSONValue?) -> [UInt8]? {
        guard let text = value?.stringValue else { return nil }
        if let data = Data(base64Encoded: text) { return Array(data) }
        let url = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let unpadded = url.hasSuffix("==") ? String(url.dropLast(2)) : url.hasSuffix("=") ? String(url.dropLast()) : url
        return Base64URL.decode(unpadded).map(Array.init)
    }
}

extension UUID {
    /// The UUID of 16 bytes in order.
    fileprivate init(bytes b: [UInt8]) {
        self.init(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
