#!/usr/bin/env bash
# The format gate (scripts/test.sh, before building): `swift format lint --strict` over the
# package's Swift sources with the repository's .swift-format, as Hummingbird's
# scripts/validate.sh does. A finding fails with the files and lines to fix; `swift format
# format -i -r Sources Tests Package.swift` fixes most of them (the rest name the rule to follow).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! swift format --version >/dev/null 2>&1; then
    echo "check-format: SKIPPED: this toolchain has no 'swift format' (Swift 6 toolchains ship it)"
    exit 0
fi
if ! findings=$(swift format lint --strict --parallel -r Sources Tests Package.swift 2>&1); then
    echo "$findings" | grep -v '^warning: ' | head -n 60
    echo "check-format: FAILED: $(echo "$findings" | grep -c ': error: ') finding(s); 'swift format format -i -r Sources Tests Package.swift' fixes most"
    exit 1
fi
echo "check-format: Sources, Tests and Package.swift pass swift format lint --strict (.swift-format)"
