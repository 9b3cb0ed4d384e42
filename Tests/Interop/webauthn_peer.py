"""The WebAuthn peers of Tests/Interop/test_passkeys.py, run by the venv that holds them.

PyPI's soft-webauthn 0.1.4 (a software authenticator; it pins fido2<2, whose cryptography pin
other peers refuse) and PyPI's webauthn 2.7.1 (Duo's py_webauthn, a relying party) live in a
venv of their own, /opt/latchkey-peers/webauthn (LATCHKEY_WEBAUTHN_PYTHON names another
python). The tests run under the system python and call this script through that venv's
python: one JSON job on stdin, one JSON answer on stdout.

Jobs:
- {"command": "create", "options": <the server's registration options JSON>, "origin": ...,
   "rp_id": optional RP ID to use instead of the options' (a look-alike relying party),
   "flags": optional authenticator-data flags byte to put in the attestation object,
   "credential_id": optional credential id to use instead of a random one}
  → {"device": <the authenticator's state>, "credential": <PublicKeyCredential JSON>}
- {"command": "get", "device": ..., "options": <the server's request options JSON>, "origin": ...,
   "rp_id": optional RP ID whose hash to sign instead, "flags": optional flags byte (the
   authenticator data is signed again, so only the flag is wrong), "sign_count": optional
   counter to use (a cloned authenticator), "other_key": true to sign with a key the server
   never saw}
  → {"device": <state, counter advanced>, "credential": <PublicKeyCredential JSON>}
- {"command": "verify", "checks": [...]} → py_webauthn's verdict on each check, in order:
  {"ok": true, "public_key", "sign_count"} or {"ok": false, "error": "<exception>: <message>"}
- {"command": "versions"} → the peers' versions.

soft-webauthn is used as it comes: its create() and get() make every byte; a job's tampering
is applied to what they return (and re-signed with the same key where the data is signed).
Binary fields are base64url without padding, as a browser's credential.toJSON() gives them.
"""

from __future__ import annotations

import base64
import json
import sys
from importlib.metadata import version


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _device_state(device) -> dict:
    from cryptography.hazmat.primitives import serialization

    return {
        "credential_id": b64(device.credential_id),
        "private_key": device.private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode(),
        "rp_id": device.rp_id,
        "user_handle": b64(device.user_handle),
        "sign_count": device.sign_count,
    }


def _device(state: dict):
    from cryptography.hazmat.primitives import serialization
    from soft_webauthn import SoftWebauthnDevice

    device = SoftWebauthnDevice()
    device.credential_id = unb64(state["credential_id"])
    device.private_key = serialization.load_pem_private_key(state["private_key"].encode(), password=None)
    device.rp_id = state["rp_id"]
    device.user_handle = unb64(state["user_handle"])
    device.sign_count = state["sign_count"]
    return device


def create(job: dict) -> dict:
    from fido2 import cbor
    from soft_webauthn import SoftWebauthnDevice

    options = job["options"]
    rp = dict(options["rp"])
    if job.get("rp_id"):
        rp["id"] = job["rp_id"]
    public_key = {
        "challenge": unb64(options["challenge"]),
        "rp": rp,
        "user": {**options["user"], "id": unb64(options["user"]["id"])},
        "pubKeyCredParams": options["pubKeyCredParams"],
        "attestation": options.get("attestation"),
    }
    device = SoftWebauthnDevice()
    if job.get("credential_id"):  # a given credential id (one the server has seen) instead of a random one
        make_key = device.cred_init

        def cred_init(rp_id, user_handle):
            make_key(rp_id, user_handle)
            device.credential_id = unb64(job["credential_id"])

        device.cred_init = cred_init
    made = device.create({"publicKey": public_key}, job["origin"])
    attestation_object = made["response"]["attestationObject"]
    if job.get("flags") is not None:  # `none` attestation signs nothing: the flags byte is all that changes
        decoded = cbor.decode(attestation_object)
        auth_data = bytearray(decoded["authData"])
        auth_data[32] = job["flags"]
        decoded["authData"] = bytes(auth_data)
        attestation_object = cbor.encode(decoded)
    credential = {
        "id": b64(made["rawId"]),
        "rawId": b64(made["rawId"]),
        "type": made["type"],
        "response": {"clientDataJSON": b64(made["response"]["clientDataJSON"]), "attestationObject": b64(attestation_object)},
        "clientExtensionResults": {},
    }
    return {"device": _device_state(device), "credential": credential}


def get(job: dict) -> dict:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from fido2.utils import sha256

    device = _device(job["device"])
    registered_rp_id = device.rp_id
    options = job["options"]
    rp_id = job.get("rp_id") or options["rpId"]
    device.rp_id = rp_id  # soft-webauthn signs for the RP ID it holds (and insists the options name it)
    if job.get("sign_count") is not None:
        device.sign_count = job["sign_count"] - 1  # get() counts up before signing
    made = device.get({"publicKey": {"challenge": unb64(options["challenge"]), "rpId": rp_id}}, job["origin"])
    device.rp_id = registered_rp_id
    response = made["response"]
    authenticator_data = response["authenticatorData"]
    signature = response["signature"]
    key = device.private_key
    if job.get("other_key"):
        key = ec.generate_private_key(ec.SECP256R1())
    if job.get("flags") is not None or job.get("other_key"):
        if job.get("flags") is not None:
            authenticator_data = authenticator_data[:32] + bytes([job["flags"]]) + authenticator_data[33:]
        signature = key.sign(authenticator_data + sha256(response["clientDataJSON"]), ec.ECDSA(hashes.SHA256()))
    credential = {
        "id": b64(made["rawId"]),
        "rawId": b64(made["rawId"]),
        "type": made["type"],
        "response": {
            "clientDataJSON": b64(response["clientDataJSON"]),
            "authenticatorData": b64(authenticator_data),
            "signature": b64(signature),
            "userHandle": b64(response["userHandle"]),
        },
        "clientExtensionResults": {},
    }
    return {"device": _device_state(device), "credential": credential}


def verify(job: dict) -> list[dict]:
    from webauthn import verify_authentication_response, verify_registration_response

    verdicts = []
    for check in job["checks"]:
        try:
            if check["kind"] == "registration":
                result = verify_registration_response(
                    credential=check["credential"], expected_challenge=unb64(check["challenge"]),
                    expected_rp_id=check["rp_id"], expected_origin=check["origin"],
                    require_user_verification=check.get("require_user_verification", False),
                )
                verdicts.append({"ok": True, "public_key": b64(result.credential_public_key), "sign_count": result.sign_count,
                                 "credential_id": b64(result.credential_id)})
            else:
                result = verify_authentication_response(
                    credential=check["credential"], expected_challenge=unb64(check["challenge"]),
                    expected_rp_id=check["rp_id"], expected_origin=check["origin"],
                    credential_public_key=unb64(check["public_key"]), credential_current_sign_count=check["sign_count"],
                    require_user_verification=check.get("require_user_verification", False),
                )
                verdicts.append({"ok": True, "sign_count": result.new_sign_count})
        except Exception as error:  # noqa: BLE001 - py_webauthn's refusals are its verdicts
            verdicts.append({"ok": False, "error": f"{type(error).__name__}: {str(error)[:300]}"})
    return verdicts


def versions(_: dict) -> dict:
    found = {name: version(name) for name in ("soft-webauthn", "fido2", "webauthn", "cryptography")}
    found["python"] = sys.version.split()[0]
    return found


if __name__ == "__main__":
    job = json.load(sys.stdin)
    commands = {"create": create, "get": get, "verify": verify, "versions": versions}
    json.dump(commands[job["command"]](job), sys.stdout)
