// A web app's passkey code, as small as it gets: it calls Latchkey's GoTrue-compatible routes
// with fetch (the `apikey` header on every call, the bearer token when signed in) and hands the
// server's WebAuthn options to the browser unchanged.
//
// Opened as index.html?server=<Latchkey URL>&apikey=<anon key>. Every action ends by writing
// its outcome as JSON into #result, with data-seq counting actions and data-state "done", so
// a test can wait for exactly the action it started.
"use strict";

const params = new URLSearchParams(location.search);
const server = params.get("server");
const apikey = params.get("apikey");
const sessionKey = "latchkey-test-app-session";

const $ = (id) => document.getElementById(id);
$("origin").textContent = location.origin;
$("server").textContent = server;

// --- WebAuthn JSON (base64url binary fields) ---------------------------------------------------
// Chromium has had parseCreationOptionsFromJSON / parseRequestOptionsFromJSON since 129 and
// PublicKeyCredential.toJSON since 116; for an older browser the conversion is done by hand.
const nativeJSON = typeof PublicKeyCredential !== "undefined"
  && typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function"
  && typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function"
  && typeof PublicKeyCredential.prototype.toJSON === "function";

function fromBase64url(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}
function toBase64url(buffer) {
  let binary = "";
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
const withBinaryIds = (list) => list && list.map((item) => ({ ...item, id: fromBase64url(item.id) }));

function creationOptions(json) {
  if (nativeJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  return { ...json, challenge: fromBase64url(json.challenge), user: { ...json.user, id: fromBase64url(json.user.id) },
           excludeCredentials: withBinaryIds(json.excludeCredentials) || [] };
}
function requestOptions(json) {
  if (nativeJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  return { ...json, challenge: fromBase64url(json.challenge), allowCredentials: withBinaryIds(json.allowCredentials) || [] };
}
function credentialJSON(credential) {
  if (nativeJSON) return credential.toJSON();
  const r = credential.response;
  const response = { clientDataJSON: toBase64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toBase64url(r.attestationObject);
    response.transports = r.getTransports ? r.getTransports() : [];
  } else {
    response.authenticatorData = toBase64url(r.authenticatorData);
    response.signature = toBase64url(r.signature);
    if (r.userHandle) response.userHandle = toBase64url(r.userHandle);
  }
  return { id: credential.id, rawId: toBase64url(credential.rawId), type: credential.type,
           authenticatorAttachment: credential.authenticatorAttachment, clientExtensionResults: {}, response };
}

// --- The server -----------------------------------------------------------------------------------
class ServerError extends Error {
  constructor(status, body) {
    super((body && (body.msg || body.error_description || body.message)) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

// What the current action did, step by step (in its outcome, so a test can tell a refusal by
// the browser from one by the server).
let trace = [];

async function call(method, path, body, accessToken) {
  const headers = { apikey };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (accessToken) headers.Authorization = `Bearer ${accessToken}`;
  const response = await fetch(server + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  trace.push(`${method} ${path.split("?")[0]} -> ${response.status}`);
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : null;
  if (!response.ok) throw new ServerError(response.status, parsed);
  return parsed;
}

const session = () => JSON.parse(sessionStorage.getItem(sessionKey) || "null");
function keepSession(value) {
  if (value) sessionStorage.setItem(sessionKey, JSON.stringify(value));
  else sessionStorage.removeItem(sessionKey);
  render();
}
function render() {
  const current = session();
  $("signed-in").hidden = !current;
  $("signed-out").hidden = !!current;
  $("who").textContent = current ? current.user.email : "";
}

// --- Actions ------------------------------------------------------------------------------------
const result = $("result");
function action(name, run) {
  return async (event) => {
    if (event) event.preventDefault();
    result.dataset.seq = String(Number(result.dataset.seq) + 1);
    result.dataset.state = "busy";
    result.dataset.action = name;
    trace = [];
    $("status").className = "";
    $("status").textContent = `${name}…`;
    let outcome;
    try {
      const { message, ...details } = await run();
      $("status").textContent = message;
      outcome = { action: name, ok: true, nativeJSON, trace, ...details };
    } catch (error) {
      $("status").className = "error";
      if (error instanceof ServerError) {
        $("status").textContent = `The server refused: ${error.body && error.body.error_code} (${error.message})`;
        outcome = { action: name, ok: false, nativeJSON, trace, status: error.status, body: error.body };
      } else {
        $("status").textContent = `The browser refused: ${error.name}`;
        outcome = { action: name, ok: false, nativeJSON, trace, error: { name: error.name, message: String(error.message) } };
      }
    }
    result.textContent = JSON.stringify(outcome, null, 2);
    result.dataset.ok = String(outcome.ok);
    result.dataset.state = "done";
  };
}

$("password-form").addEventListener("submit", action("password-sign-in", async () => {
  const answer = await call("POST", "/token?grant_type=password", { email: $("email").value, password: $("password").value });
  keepSession(answer);
  return { message: `Signed in with a password as ${answer.user.email}.`, user: answer.user.id };
}));

$("add-passkey").addEventListener("click", action("add-passkey", async () => {
  const token = session().access_token;
  const { challenge_id, options } = await call("POST", "/passkeys/registration/options", {}, token);
  const credential = await navigator.credentials.create({ publicKey: creationOptions(options) });
  trace.push("navigator.credentials.create -> credential");
  const passkey = await call("POST", "/passkeys/registration/verify", { challenge_id, credential: credentialJSON(credential) }, token);
  return { message: `Passkey "${passkey.friendly_name}" added.`, options, credentialId: credential.id, passkey };
}));

$("passkey-sign-in").addEventListener("click", action("passkey-sign-in", async () => {
  const { challenge_id, options } = await call("POST", "/passkeys/authentication/options", {});
  const credential = await navigator.credentials.get({ publicKey: requestOptions(options) });
  trace.push("navigator.credentials.get -> credential");
  const answer = await call("POST", "/passkeys/authentication/verify", { challenge_id, credential: credentialJSON(credential) });
  keepSession(answer);
  const user = await call("GET", "/user", undefined, answer.access_token);
  return { message: `Signed in with a passkey as ${user.email}.`, options, credentialId: credential.id, user: user.id, email: user.email };
}));

$("whoami").addEventListener("click", action("whoami", async () => {
  const user = await call("GET", "/user", undefined, session().access_token);
  return { message: `The server says: ${user.email}.`, user: user.id, email: user.email };
}));

$("sign-out").addEventListener("click", action("sign-out", async () => {
  await call("POST", "/logout", undefined, session().access_token);
  keepSession(null);
  return { message: "Signed out." };
}));

render();
