#!/usr/bin/env python3
"""Reads an email as a mail client does, with Python's `email` package, and prints what it sees.

    mail_client.py FILE

FILE holds the message (an outbox .eml, or what the SMTP test server received). Prints one JSON
object: the decoded subject and recipient, the top-level content type, each leaf part (content
type, transfer encoding, charset, decoded text), the chosen plain-text and HTML bodies, the
longest line of the raw message in bytes, and the parser's defects (none for a valid message).
"""

import email
import email.policy
import json
import sys


def main():
    with open(sys.argv[1], "rb") as handle:
        raw = handle.read()
    message = email.message_from_bytes(raw, policy=email.policy.default)
    text = message.get_body(preferencelist=("plain",))
    html = message.get_body(preferencelist=("html",))
    parts = []
    defects = [str(defect) for defect in message.defects]
    for part in message.walk():
        defects += [str(defect) for defect in part.defects]
        if part.is_multipart():
            continue
        parts.append({
            "content_type": part.get_content_type(),
            "transfer_encoding": str(part.get("Content-Transfer-Encoding", "")),
            "charset": part.get_content_charset(),
            "text": part.get_content(),
        })
    lines = raw.split(b"\r\n")
    print(json.dumps({
        "subject": str(message["Subject"]),
        "to": str(message["To"]),
        "from": str(message["From"]),
        "content_type": message.get_content_type(),
        "parts": parts,
        "text": text.get_content() if text is not None else None,
        "html": html.get_content() if html is not None else None,
        "longest_line": max(len(line) for line in lines),
        "bare_line_feeds": raw.replace(b"\r\n", b"").count(b"\n"),
        "defects": defects,
    }))


if __name__ == "__main__":
    main()
