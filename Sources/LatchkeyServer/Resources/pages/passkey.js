// Passkeys on Latchkey's hosted pages: "Add a passkey instead" on the set-new-password page,
// and "Sign in with a passkey" on welcome/sign-in.
//
// The page says what to do in data-* attributes of #passkey: data-passkey ("register" or
// "sign-in"), the URLs to post to (data-options, data-verify, relative to the page), the form's
// CSRF value (data-csrf) and the sign-in page's redirect and PKCE parameters. Only this origin is
// contacted; nothing is kept in the browser (no web storage, no cookie written here): a
// session, if any, travels in the address the server answers, straight to the app.
//
// Without WebAuthn the button stays hidden and the page works as it does without this script.
// A cancelled or refused ceremony is explained in #passkey-problem (role="alert"), and the button
// can be pressed again; the rest of the page is left as it was.
(function () {
  "use strict";

  var root = document.getElementById("passkey");
  var button = document.getElementById("passkey-button");
  var problem = document.getElementById("passkey-problem");
  if (!root || !button || !problem) return;
  var kind = root.getAttribute("data-passkey");
  var supported = typeof window.PublicKeyCredential === "function" && !!navigator.credentials &&
    typeof navigator.credentials.create === "function" && typeof navigator.credentials.get === "function" &&
    typeof window.fetch === "function";
  if (!supported || (kind !== "register" && kind !== "sign-in")) return;

  // --- base64url <-> ArrayBuffer (RFC 4648 §5, no padding) -----------------------------------

  function toBase64url(buffer) {
    var bytes = new Uint8Array(buffer);
    var binary = "";
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return window.btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function fromBase64url(text) {
    if (typeof text !== "string" || !/^[A-Za-z0-9_-]*={0,2}$/.test(text)) throw new ProtocolError("not base64url");
    var base64 = text.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
    while (base64.length % 4 !== 0) base64 += "=";
    var binary = window.atob(base64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  // --- The server's options (WebAuthn's JSON form) for the browser, and back -----------------

  function ProtocolError(message) {
    this.name = "ProtocolError";
    this.message = message;
  }

  function withIDs(descriptors) {
    return descriptors.map(function (descriptor) {
      return Object.assign({}, descriptor, { id: fromBase64url(descriptor.id) });
    });
  }

  function creationOptions(json) {
    if (!json || !json.user) throw new ProtocolError("no creation options");
    var options = Object.assign({}, json, {
      challenge: fromBase64url(json.challenge),
      user: Object.assign({}, json.user, { id: fromBase64url(json.user.id) }),
    });
    if (json.excludeCredentials) options.excludeCredentials = withIDs(json.excludeCredentials);
    return options;
  }

  function requestOptions(json) {
    if (!json) throw new ProtocolError("no request options");
    var options = Object.assign({}, json, { challenge: fromBase64url(json.challenge) });
    if (json.allowCredentials) options.allowCredentials = withIDs(json.allowCredentials);
    return options;
  }

  function credentialJSON(credential) {
    var response = credential.response;
    var json = {
      id: credential.id,
      rawId: toBase64url(credential.rawId),
      type: credential.type,
      clientExtensionResults: typeof credential.getClientExtensionResults === "function" ? credential.getClientExtensionResults() : {},
      response: { clientDataJSON: toBase64url(response.clientDataJSON) },
    };
    if (credential.authenticatorAttachment) json.authenticatorAttachment = credential.authenticatorAttachment;
    if (response.attestationObject) {
      json.response.attestationObject = toBase64url(response.attestationObject);
      if (typeof response.getTransports === "function") json.response.transports = response.getTransports();
    } else {
      json.response.authenticatorData = toBase64url(response.authenticatorData);
      json.response.signature = toBase64url(response.signature);
      if (response.userHandle) json.response.userHandle = toBase64url(response.userHandle);
    }
    return json;
  }

  // --- Talking to the server ----------------------------------------------------------------

  function Refusal(answer, status) {
    this.name = "Refusal";
    this.status = status;
    this.code = (answer && (answer.error_code || answer.code)) || "";
    this.message = (answer && (answer.msg || answer.message || answer.error_description)) || "";
  }

  function NetworkError() {
    this.name = "NetworkError";
  }

  function post(url, body) {
    return window.fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store",
      redirect: "error",
    }).then(
      function (response) {
        return response.json().catch(function () { return null; }).then(function (answer) {
          if (!response.ok || !answer) throw new Refusal(answer, response.status);
          return answer;
        });
      },
      function () { throw new NetworkError(); }
    );
  }

  function data(name) {
    return root.getAttribute("data-" + name) || "";
  }

  function register() {
    var csrf = data("csrf");
    return post(data("options"), { csrf: csrf }).then(function (answer) {
      return navigator.credentials.create({ publicKey: creationOptions(answer.options) }).then(function (credential) {
        if (!credential) throw new ProtocolError("no credential");
        return post(data("verify"), { csrf: csrf, challenge_id: answer.challenge_id, credential: credentialJSON(credential) });
      });
    });
  }

  function signIn() {
    return post(data("options"), {}).then(function (answer) {
      return navigator.credentials.get({ publicKey: requestOptions(answer.options) }).then(function (credential) {
        if (!credential) throw new ProtocolError("no credential");
        var body = { challenge_id: answer.challenge_id, credential: credentialJSON(credential) };
        [["redirect_to", "redirect-to"], ["code_challenge", "code-challenge"], ["code_challenge_method", "code-challenge-method"]]
          .forEach(function (pair) {
            if (data(pair[1])) body[pair[0]] = data(pair[1]);
          });
        return post(data("verify"), body);
      });
    });
  }

  // --- What the person sees -----------------------------------------------------------------

  function explain(error) {
    var registering = kind === "register";
    var instead = registering ? " You can try again, or choose a password above." : " You can try again.";
    switch (error && error.name) {
      case "NotAllowedError":
        return registering
          ? "No passkey was added: the request was cancelled or timed out." + instead
          : "No passkey was used: the request was cancelled or timed out, or this device has no passkey for this site." + instead;
      case "InvalidStateError":
        return "This device already has a passkey for this account." + instead;
      case "SecurityError":
        return "This browser does not allow passkeys for this address." + instead;
      case "NetworkError":
        return "The server could not be reached. Check the connection and try again.";
      case "Refusal":
        if (error.code === "webauthn_verification_failed") {
          return registering
            ? "The passkey could not be verified, so it was not added." + instead
            : "This passkey was not accepted: it may have been removed from the account. Try another passkey, or sign in another way.";
        }
        return error.message || "The server refused the request (" + error.status + ")." + instead;
      default:
        return "The passkey could not be used" + (error && error.name ? " (" + error.name + ")" : "") + "." + instead;
    }
  }

  root.hidden = false;
  button.hidden = false;
  var unsupported = document.getElementById("passkey-unsupported");
  if (unsupported) unsupported.hidden = true;

  button.addEventListener("click", function () {
    if (button.disabled) return;
    button.disabled = true;
    root.setAttribute("aria-busy", "true");
    problem.textContent = "";
    (kind === "register" ? register() : signIn()).then(
      function (answer) {
        if (!answer || typeof answer.location !== "string") throw new ProtocolError("no location");
        window.location.assign(answer.location);
      }
    ).catch(function (error) {
      problem.textContent = explain(error);
      button.disabled = false;
      root.removeAttribute("aria-busy");
    });
  });
})();
