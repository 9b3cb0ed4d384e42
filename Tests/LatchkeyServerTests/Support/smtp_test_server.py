#!/usr/bin/env python3
"""A real SMTP server for the SMTP client tests: Debian's python3-aiosmtpd on loopback.

    smtp_test_server.py --dir DIR --mode MODE [--user USER --password PASSWORD]

Modes:
  starttls     STARTTLS offered and required before anything else; AUTH PLAIN/LOGIN required
               (only after STARTTLS), with USER/PASSWORD.
  implicit     TLS from the first byte (smtps); AUTH required.
  refuse-auth  as starttls, but every AUTH is refused (535).
  drop-data    as starttls, but the connection is dropped after the first line of DATA.
  plain        no TLS offered; AUTH required, allowed without TLS (loopback only).
  open         no TLS, no AUTH.

In every mode, RCPT TO a recipient whose local part is "reject" is answered with a multi-line
550, and "later" with a 451.

At start it writes a self-signed certificate (CN and subjectAltName localhost/127.0.0.1) to
DIR/cert.pem, then DIR/ready.json ({"port": N, "cert": PATH}) once it accepts connections. Each
message received becomes DIR/mail/NNN.json with the envelope, whether TLS and AUTH were used,
and the message as received (dot-unstuffed). Files appear atomically (written, then renamed).
The server runs until it is killed (SIGTERM).
"""

import argparse
import asyncio
import json
import os
import ssl
import subprocess

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def write_atomically(path, data):
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.rename(temporary, path)


class Handler:
    def __init__(self, folder):
        self.folder = folder
        self.count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        local = address.split("@", 1)[0]
        if local == "reject":
            return "550-5.1.1 The mailbox does not exist.\r\n550 5.1.1 Second line of the same reply."
        if local == "later":
            return "451 4.3.0 Mailbox busy, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        record = {
            "mail_from": envelope.mail_from,
            "mail_options": envelope.mail_options,
            "rcpt_tos": envelope.rcpt_tos,
            # Implicit TLS and STARTTLS alike: the transport the message came over was TLS.
            "tls": server.transport.get_extra_info("ssl_object") is not None,
            "authenticated": bool(session.authenticated),
            "helo": session.host_name,
            "data": envelope.original_content.decode("utf-8", errors="replace"),
        }
        write_atomically(os.path.join(self.folder, "mail", "%03d.json" % self.count), record)
        return "250 Message accepted for delivery"


class DroppingSMTP(SMTP):
    """Answers DATA with 354, reads one line of the message, then drops the connection."""

    async def smtp_DATA(self, arg):
        if await self.check_helo_needed() or await self.check_auth_needed("DATA"):
            return
        await self.push("354 End data with <CR><LF>.<CR><LF>")
        await self._reader.readuntil(b"\r\n")
        self.transport.abort()


def make_certificate(folder):
    cert = os.path.join(folder, "cert.pem")
    key = os.path.join(folder, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-days", "2", "-keyout", key, "-out", cert],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return cert, context


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--mode", default="starttls",
                        choices=["starttls", "implicit", "refuse-auth", "drop-data", "plain", "open"])
    parser.add_argument("--user", default="mailer")
    parser.add_argument("--password", default="secret")
    options = parser.parse_args()
    os.makedirs(os.path.join(options.dir, "mail"), exist_ok=True)
    cert, context = make_certificate(options.dir)

    def authenticator(server, session, envelope, mechanism, auth_data):
        if options.mode == "refuse-auth" or not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        ok = auth_data.login == options.user.encode() and auth_data.password == options.password.encode()
        return AuthResult(success=ok, handled=False)

    handler = Handler(options.dir)
    loop = asyncio.get_running_loop()
    mode = options.mode

    def factory():
        arguments = dict(hostname="smtp.test", ident="latchkey test SMTP", loop=loop)
        if mode in ("starttls", "refuse-auth", "drop-data"):
            arguments.update(tls_context=context, require_starttls=True, auth_required=True,
                             auth_require_tls=True, authenticator=authenticator)
        elif mode == "implicit":
            arguments.update(auth_required=True, auth_require_tls=False, authenticator=authenticator)
        elif mode == "plain":
            arguments.update(auth_required=True, auth_require_tls=False, authenticator=authenticator)
        kind = DroppingSMTP if mode == "drop-data" else SMTP
        return kind(handler, **arguments)

    server = await loop.create_server(factory, host="127.0.0.1", port=0,
                                      ssl=context if mode == "implicit" else None)
    port = server.sockets[0].getsockname()[1]
    write_atomically(os.path.join(options.dir, "ready.json"), {"port": port, "cert": cert})
    # Runs until SIGTERM (the test's end).
    await asyncio.Event().wait()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
