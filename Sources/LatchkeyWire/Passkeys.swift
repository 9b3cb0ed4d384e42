import Foundation

// Passkeys on the wire, as GoTrue's `/passkeys` routes speak it. Binary values are base64url
// without padding, the WebAuthn JSON serialization browsers give with
// `PublicKeyCredential.parseCreationOptionsFromJSON` and `credential.toJSON()`.

/// A credential type and algorithm the server accepts (`{"type": "public-key", "alg": -7}`).
public struct PasskeyCredentialParameters: Codable, Sendable, Hashable {
    public var type: String
    public var alg: Int

    public init(type: String = "public-key", alg: Int) {
        self.type = type
        self.alg = alg
    }
}

/// A credential named in options (`excludeCredentials`, `allowCredentials`).
public struct PasskeyCredentialDescriptor: Codable, Sendable, Hashable {
    public var type: String
    /// The credential id, base64url.
    public var id: String
    public var transports: [String]?

    public init(type: String = "public-key", id: String, transports: [String]? = nil) {
        self.type = type
        self.id = id
        self.transports = transports
    }
}

/// `PublicKeyCredentialCreationOptions` in JSON: what `navigator.credentials.create()` (or
/// `ASAuthorizationPlatformPublicKeyCredentialProvider`) needs to make a passkey.
public struct PublicKeyCredentialCreationOptionsJSON: Codable, Sendable, Hashable {
    public struct RelyingParty: Codable, Sendable, Hashable {
        public var id: String
        public var name: String

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    public struct User: Codable, Sendable, Hashable {
        /// The user handle, base64url: the UTF-8 bytes of the account's id.
        public var id: String
        public var name: String
        public var displayName: String

        public init(id: String, name: String, displayName: String) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }
    }

    public struct AuthenticatorSelection: Codable, Sendable, Hashable {
        public var residentKey: String?
        public var requireResidentKey: Bool?
        public var userVerification: String?

        public init(residentKey: String? = "required", requireResidentKey: Bool? = true, userVerification: String? = "preferred") {
            self.residentKey = residentKey
            self.requireResidentKey = requireResidentKey
            self.userVerification = userVerification
        }
    }

    public var rp: RelyingParty
    public var user: User
    /// base64url.
    public var challenge: String
    public var pubKeyCredParams: [PasskeyCredentialParameters]
    /// Milliseconds.
    public var timeout: Int?
    public var excludeCredentials: [PasskeyCredentialDescriptor]?
    public var authenticatorSelection: AuthenticatorSelection?
    public var attestation: String?

    public init(
        rp: RelyingParty, user: User, challenge: String, pubKeyCredParams: [PasskeyCredentialParameters], timeout: Int?,
        excludeCredentials: [PasskeyCredentialDescriptor]?, authenticatorSelection: AuthenticatorSelection?, attestation: String?
    ) {
        self.rp = rp
        self.user = user
        self.challenge = challenge
        self.pubKeyCredParams = pubKeyCredParams
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.authenticatorSelection = authenticatorSelection
        self.attestation = attestation
    }
}

/// `PublicKeyCredentialRequestOptions` in JSON: what `navigator.credentials.get()` needs to
/// sign in. No `allowCredentials`: the authenticator offers the passkeys it holds for the site.
public struct PublicKeyCredentialRequestOptionsJSON: Codable, Sendable, Hashable {
    /// base64url.
    public var challenge: String
    /// Milliseconds.
    public var timeout: Int?
    public var rpId: String
    public var allowCredentials: [PasskeyCredentialDescriptor]?
    public var userVerification: String?

    public init(challenge: String, timeout: Int?, rpId: String, allowCredentials: [PasskeyCredentialDescriptor]? = nil, userVerification: String?) {
        self.challenge = challenge
        self.timeout = timeout
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
    }
}

/// `POST /passkeys/registration/options` and `/passkeys/authentication/options`: the options
/// and the challenge's id, to send back with the credential before `expires_at`.
public struct PasskeyOptionsResponse<Options: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    public var challenge_id: String
    public var options: Options
    /// Unix seconds.
    public var expires_at: Int

    public init(challenge_id: String, options: Options, expires_at: Int) {
        self.challenge_id = challenge_id
        self.options = options
        self.expires_at = expires_at
    }
}

/// A `PublicKeyCredential` in JSON (`credential.toJSON()`): a registration's (`attestationObject`)
/// or an assertion's (`authenticatorData`, `signature`, `userHandle`).
public struct PasskeyCredential: Codable, Sendable, Hashable {
    public struct Response: Codable, Sendable, Hashable {
        public var clientDataJSON: String
        public var attestationObject: String?
        public var transports: [String]?
        public var authenticatorData: String?
        public var signature: String?
        public var userHandle: String?

        public init(
            clientDataJSON: String, attestationObject: String? = nil, transports: [String]? = nil, authenticatorData: String? = nil,
            signature: String? = nil, userHandle: String? = nil
        ) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
            self.transports = transports
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
        }
    }

    /// The credential id, base64url.
    public var id: String
    /// The credential id, base64url (the same bytes as ``id``).
    public var rawId: String?
    public var type: String
    public var response: Response
    public var authenticatorAttachment: String?

    public init(id: String, rawId: String? = nil, type: String = "public-key", response: Response, authenticatorAttachment: String? = nil) {
        self.id = id
        self.rawId = rawId ?? id
        self.type = type
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
    }
}

/// `POST /passkeys/registration/verify` and `/passkeys/authentication/verify`.
public struct PasskeyVerifyBody: Codable, Sendable, Hashable {
    public var challenge_id: String?
    public var credential: PasskeyCredential?

    public init(challenge_id: String?, credential: PasskeyCredential?) {
        self.challenge_id = challenge_id
        self.credential = credential
    }
}

/// A passkey as `GET /passkeys` lists it; times in RFC 3339, as GoTrue writes them.
public struct PasskeyResponse: Codable, Sendable, Hashable {
    public var id: String
    public var friendly_name: String?
    public var created_at: String
    public var last_used_at: String?

    public init(id: String, friendly_name: String?, created_at: String, last_used_at: String?) {
        self.id = id
        self.friendly_name = friendly_name
        self.created_at = created_at
        self.last_used_at = last_used_at
    }
}

/// `PATCH /passkeys/{id}`: renames a passkey.
public struct PasskeyUpdateBody: Codable, Sendable, Hashable {
    public var friendly_name: String?

    public init(friendly_name: String?) {
        self.friendly_name = friendly_name
    }
}
