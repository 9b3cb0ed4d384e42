#!/usr/bin/env bash
# Fails on the test patterns that turned fresh clones red on a loaded machine, so a new test
# cannot bring them back unnoticed (run by scripts/test.sh before it builds):
#
#   elapsed-time   an assertion on how long something took (`elapsed`, `.now - start`,
#                  `Date().timeIntervalSince`, `duration(to:)`, a value measured so, or a
#                  `<`/`>` comparison with a duration literal). On a loaded machine any request
#                  can take seconds: test what the code asked for (an injected clock's recorded
#                  sleeps, the order of events), not how long it took. Timings belong in
#                  Benchmarks/.
#   fixed-port     a literal port to bind (`port: 8080`, `--port 9999`, `port=5000`), or a
#                  stopped server's port bound again by hand (`port: first.port`). Ports come
#                  from the one allocator (TestAuthServer.restartablePort(), Python's
#                  free_port()), a server is started again with TestAuthServer.restart().
#   sleep-assert   a fixed sleep (`Task.sleep`, `sleep`, `usleep`, `time.sleep`) followed by an
#                  assertion, outside a loop that waits for a condition. Wait for the condition
#                  (`eventually { … }`, a deadline loop) instead.
#
# The few justified exceptions are listed, each with its reason, in scripts/check-tests.allow.
# `scripts/check-tests.sh [folder [allow-list]]` checks Tests/ (or the folder given) with
# scripts/check-tests.allow (or the list given); exits 1 on a finding.
# scripts/check-tests-selftest.sh shows that each rule fires.
set -euo pipefail
folder=$(realpath "${1:-$(dirname "$0")/../Tests}")
allow=$(realpath -m "${2:-$(dirname "$0")/check-tests.allow}")
cd "$(dirname "$0")/.."
exec python3 - "$folder" "$allow" <<'PY'
import pathlib
import re
import sys

root, allow_path = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
base = pathlib.Path.cwd()

# The allow-list: `rule | path | text on the line | why`, one per line; # starts a comment.
allowed = []
for number, line in enumerate(allow_path.read_text().splitlines() if allow_path.exists() else [], 1):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    parts = [part.strip() for part in line.split("|")]
    if len(parts) != 4 or not all(parts):
        sys.exit(f"check-tests: {allow_path}:{number}: expected `rule | path | text on the line | why`")
    allowed.append(parts)
used = set()

ASSERTION = re.compile(r"#expect\b|#require\b|\bXCTAssert\w*\(|^\s*assert\s|\bself\.assert\w*\(")
CLOCK_READING = re.compile(
    r"\belapsed\b|\b(Continuous|Suspending)Clock\.now\b|\.now\s*-\s*\w|\bDate\(\)\.timeIntervalSince|"
    r"\.timeIntervalSinceNow\b|\bDispatchTime\.now\(\)|\bCFAbsoluteTimeGetCurrent\(\)|\.duration\(to:|"
    r"\btime\.(monotonic|perf_counter)\(\)")
DURATION_COMPARISON = re.compile(r"(<=?|>=?)\s*\.?(seconds|milliseconds|microseconds|nanoseconds)\(")
MEASURED = re.compile(r"\b(?:let|var)\s+\(?\s*(\w+)[^=]*=\s*(.*)$")
SLEEP = re.compile(r"\bTask\.sleep\(|\bThread\.sleep\(|(?<![\w.])u?sleep\(|\btime\.sleep\(")
WAITING = re.compile(r"\bwhile\b|\brepeat\b|\bfor\b(?!:)|deadline|eventually|\buntil\b(?!:)")
FIXED_PORT = re.compile(
    r"\bport\s*:\s*[1-9]\d{1,4}\b|\"--port\",\s*\"[1-9]\d{1,4}\"|--port[ =][1-9]\d{1,4}\b|\bport\s*=\s*[1-9]\d{1,4}\b(?!\s*[/)])|"
    r"\.port\s*=\s*[1-9]\d{1,4}\b")
REBIND = re.compile(r"\bdataDirectory:\s*(\w+)\.dataDirectory\b.*\bport:\s*\1\.port\b|\bstart\(.*\bport:\s*(?!0\b)\w+\.port\b")

findings = []


def report(rule, path, number, line, message):
    text = line.strip()
    path = path.relative_to(base) if path.is_relative_to(base) else path
    for index, (a_rule, a_path, a_text, _) in enumerate(allowed):
        if a_rule == rule and str(path) == a_path and a_text in text:
            used.add(index)
            return
    findings.append(f"{path}:{number}: {rule}: {message}\n    {text}")


files = sorted(p for p in root.rglob("*") if p.suffix in (".swift", ".py") and ".build" not in p.parts)
for path in files:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    measured = set()  # names bound to a clock reading in this file
    for index, line in enumerate(lines):
        number = index + 1
        code = line.split("//")[0] if path.suffix == ".swift" else line.split("#")[0]
        binding = MEASURED.search(code)
        if binding and CLOCK_READING.search(binding.group(2)) and not re.search(r"deadline", binding.group(1), re.I):
            measured.update(re.findall(r"\w+", code[code.index(binding.group(1)) - 1:code.index("=")]))
        if ASSERTION.search(code):
            uses_measured = any(re.search(rf"\b{re.escape(name)}\b\s*(<=?|>=?)|(<=?|>=?)\s*\b{re.escape(name)}\b", code)
                                for name in measured if name not in ("let", "var", "try", "await", "_"))
            if CLOCK_READING.search(code) or DURATION_COMPARISON.search(code) or uses_measured:
                report("elapsed-time", path, number, line,
                       "an assertion on elapsed wall-clock time; assert on what the code asked for (an injected clock)")
        if any(0 < int(port) < 65536 for port in re.findall(r"\d+", "".join(m.group(0) for m in FIXED_PORT.finditer(code)))):
            report("fixed-port", path, number, line, "a fixed port; take one from TestAuthServer.restartablePort() / free_port()")
        if REBIND.search(code):
            report("fixed-port", path, number, line,
                   "a stopped server's port bound again by hand; start it again with TestAuthServer.restart()")
        if SLEEP.search(code) and not re.search(r"func\s+\w*sleep", code, re.I):
            # Inside a loop that waits for a condition (the sleep's line, or the header of the
            # block it is in) the sleep is a poll interval, not a wait.
            indent = len(line) - len(line.lstrip())
            header = next((l for l in reversed(lines[:index]) if l.strip() and len(l) - len(l.lstrip()) < indent), "")
            if WAITING.search(code) or WAITING.search(header.split("//")[0].split("#")[0]):
                continue
            following = [l for l in lines[index + 1:index + 6] if l.strip()][:3]
            if any(ASSERTION.search(l) for l in following):
                report("sleep-assert", path, number, line,
                       "a fixed sleep, then an assertion; wait for the condition (eventually { … }) instead")

stale = [allowed[i] for i in range(len(allowed)) if i not in used]
for rule, path, text, _ in stale:
    findings.append(f"{allow_path}: the allowed `{rule}` in {path} (`{text}`) is no longer found: remove it from the list")

if findings:
    print("check-tests: FAILED: %d finding(s) (the rules and the allow-list: scripts/check-tests.sh, scripts/check-tests.allow)" % len(findings))
    print("\n".join(findings))
    sys.exit(1)
print(f"check-tests: {len(files)} test files: no elapsed-time assertion, fixed port or sleep-then-assert ({len(allowed)} allowed, each with its reason)")
PY
