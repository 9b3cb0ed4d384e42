import Foundation

/// Two WebAuthn implementations nobody here wrote, run through Python: PyPI's `soft-webauthn`
/// 0.1.4 (a software authenticator on fido2 1.x) makes credentials and assertions, and PyPI's
/// `webauthn` 2.7.1 (Duo's py_webauthn, a relying party) verifies responses, so the tests can
/// check the server's WebAuthn core accepts real responses and agrees with another verifier.
///
/// They live in a venv of their own (soft-webauthn's fido2<2 needs cryptography<45, which
/// other peers' packages refuse): `LATCHKEY_WEBAUTHN_PYTHON`, else
/// `/opt/latchkey-peers/webauthn/bin/python3`, as .ci/run makes it.
package enum WebAuthnPeer {
    /// The venv's Python.
    package static let python =
        ProcessInfo.processInfo.environment["LATCHKEY_WEBAUTHN_PYTHON"] ?? "/opt/latchkey-peers/webauthn/bin/python3"

    /// Whether that Python can import both packages (checked once, when the tests are planned).
    package static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python),
            let process = try? ChildProcess(
                executable: python, arguments: ["-c", "import soft_webauthn, webauthn"], environment: ProcessInfo.processInfo.environment)
        else { return false }
        return process.terminationStatus == 0
    }()

    package static let skipReason =
        "\(python) cannot import soft_webauthn and webauthn: python3 -m venv /opt/latchkey-peers/webauthn, then its pip install soft-webauthn==0.1.4 webauthn==2.7.1"

    /// A registration made by soft-webauthn (base64url fields, as a browser's JSON has them).
    package struct Registration: Codable, Sendable {
        package var id: String
        package var clientDataJSON: String
        package var attestationObject: String
    }

    /// An assertion made by soft-webauthn.
    package struct Assertion: Codable, Sendable {
        package var authenticatorData: String
        package var clientDataJSON: String
        package var signature: String
        package var userHandle: String?
    }

    /// One credential and its assertions, from one soft-webauthn device.
    package struct Ceremonies: Codable, Sendable {
        package var registration: Registration
        package var assertions: [Assertion]
        package var versions: [String: String]
    }

    /// One response for py_webauthn to verify, with what it should expect.
    package struct Check: Codable, Sendable {
        /// `registration` or `assertion`.
        package var kind: String
        package var credentialID: String
        package var clientDataJSON: String
        package var attestationObject: String?
        package var authenticatorData: String?
        package var signature: String?
        package var userHandle: String?
        package var challenge: String
        package var rpID: String
        package var origin: String
        /// COSE key (base64url) and stored counter, for assertions.
        package var publicKey: String?
        package var signCount: Int?
        package var requireUserVerification: Bool

        package init(
            kind: String, credentialID: String, clientDataJSON: String, attestationObject: String? = nil,
            authenticatorData: String? = nil, signature: String? = nil, userHandle: String? = nil, challenge: String, rpID: String,
            origin: String, publicKey: String? = nil, signCount: Int? = nil, requireUserVerification: Bool = false
        ) {
            self.kind = kind
            self.credentialID = credentialID
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
            self.challenge = challenge
            self.rpID = rpID
            self.origin = origin
            self.publicKey = publicKey
            self.signCount = signCount
            self.requireUserVerification = requireUserVerification
        }
    }

    /// py_webauthn's verdict on one ``Check``.
    package struct Verdict: Codable, Sendable {
        package var ok: Bool
        /// py_webauthn's exception class and message when it refused.
        package var error: String?
        /// The COSE key it extracted (registrations) or the new counter (assertions).
        package var publicKey: String?
        package var signCount: Int?
    }

    static let script = """
        import base64, json, sys
        from importlib.metadata import version

        def b64(data): return base64.urlsafe_b64encode(data).decode().rstrip("=")
        def unb64(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

        job = json.loads(sys.argv[1])
        if job["command"] == "ceremonies":
            from soft_webauthn import SoftWebauthnDevice
            device = SoftWebauthnDevice()
            options = {"publicKey": {
                "challenge": unb64(job["challenge"]), "rp": {"id": job["rpID"], "name": "Latchkey"},
                "user": {"id": unb64(job["userHandle"]), "name": "person", "displayName": "Person"},
                "pubKeyCredParams": [{"alg": -7, "type": "public-key"}]}}
            made = device.create(options, job["origin"])
            registration = {"id": b64(made["rawId"]), "clientDataJSON": b64(made["response"]["clientDataJSON"]),
                            "attestationObject": b64(made["response"]["attestationObject"])}
            assertions = []
            for challenge in job["assertionChallenges"]:
                got = device.get({"publicKey": {"challenge": unb64(challenge), "rpId": job["rpID"]}}, job["origin"])
                response = got["response"]
                assertions.append({"authenticatorData": b64(response["authenticatorData"]),
                                   "clientDataJSON": b64(response["clientDataJSON"]), "signature": b64(response["signature"]),
                                   "userHandle": b64(response["userHandle"]) if response["userHandle"] else None})
            versions = {name: version(name) for name in ("soft-webauthn", "fido2", "webauthn", "cryptography")}
            versions["python"] = sys.version.split()[0]
            print(json.dumps({"registration": registration, "assertions": assertions, "versions": versions}))
        else:
            from webauthn import verify_registration_response, verify_authentication_response
            verdicts = []
            for check in job["checks"]:
                try:
                    if check["kind"] == "registration":
                        credential = {"id": check["credentialID"], "rawId": check["credentialID"], "type": "public-key",
                                      "response": {"clientDataJSON": check["clientDataJSON"],
                                                   "attestationObject": check["attestationObject"]}}
                        result = verify_registration_response(
                            credential=credential, expected_challenge=unb64(check["challenge"]), expected_rp_id=check["rpID"],
                            expected_origin=check["origin"], require_user_verification=check["requireUserVerification"])
                        verdicts.append({"ok": True, "publicKey": b64(result.credential_public_key), "signCount": result.sign_count})
                    else:
                        response = {"clientDataJSON": check["clientDataJSON"], "authenticatorData": check["authenticatorData"],
                                    "signature": check["signature"]}
                        if check.get("userHandle"): response["userHandle"] = check["userHandle"]
                        credential = {"id": check["credentialID"], "rawId": check["credentialID"], "type": "public-key",
                                      "response": response}
                        result = verify_authentication_response(
                            credential=credential, expected_challenge=unb64(check["challenge"]), expected_rp_id=check["rpID"],
                            expected_origin=check["origin"], credential_public_key=unb64(check["publicKey"]),
                            credential_current_sign_count=check["signCount"],
                            require_user_verification=check["requireUserVerification"])
                        verdicts.append({"ok": True, "signCount": result.new_sign_count})
                except Exception as error:
                    verdicts.append({"ok": False, "error": type(error).__name__ + ": " + str(error)[:200]})
            print(json.dumps(verdicts))
        """

    /// soft-webauthn registers one credential for `rpID` on `origin` under `challenge`, then
    /// makes one assertion per challenge in `assertionChallenges` (all base64url).
    package static func ceremonies(
        rpID: String, origin: String, userHandle: String, challenge: String, assertionChallenges: [String]
    ) async throws -> Ceremonies {
        let job: [String: Any] = [
            "command": "ceremonies", "rpID": rpID, "origin": origin, "userHandle": userHandle, "challenge": challenge,
            "assertionChallenges": assertionChallenges,
        ]
        return try await run(job, as: Ceremonies.self)
    }

    /// py_webauthn's verdict on each check, in order.
    package static func verify(_ checks: [Check]) async throws -> [Verdict] {
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(checks))
        let verdicts = try await run(["command": "verify", "checks": encoded], as: [Verdict].self)
        guard verdicts.count == checks.count else { throw PeerFailure(description: "py_webauthn answered \(verdicts.count) of \(checks.count)") }
        return verdicts
    }

    /// Runs the script with `job` as its JSON argument and decodes what it prints.
    static func run<Output: Decodable>(_ job: [String: Any], as: Output.Type) async throws -> Output {
        let argument = String(decoding: try JSONSerialization.data(withJSONObject: job), as: UTF8.self)
        let (status, output) = try await ChildProcess.run(
            executable: python, arguments: ["-c", script, argument], environment: ProcessInfo.processInfo.environment)
        guard status == 0 else { throw PeerFailure(description: "the WebAuthn peer script exited with \(status)") }
        return try JSONDecoder().decode(Output.self, from: output)
    }

    package struct PeerFailure: Error, CustomStringConvertible {
        package var description: String
    }
}
