#!/usr/bin/env bash
# Shows that scripts/check-portability.sh passes a clean package and fails on each planted
# problem: a case collision, an unguarded Synchronization import, an unguarded Glibc import, an
# unguarded dlopen of libsecret, a missing platform floor, value-initialised spawn types, and the
# same in a test target. Prints "N passed, N failed".
set -uo pipefail
check="$(cd "$(dirname "$0")" && pwd)/check-portability.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

fresh() {
    rm -rf "$work/pkg" && mkdir -p "$work/pkg/Sources/App" "$work/pkg/Sources/Tool" && cd "$work/pkg" || exit 1
    git init -q .
    cat > Package.swift <<'SWIFT'
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "App",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [.library(name: "App", targets: ["App"]), .executable(name: "app", targets: ["Tool"])],
    targets: [
        .target(
            name: "App"
        ),
        .executableTarget(
            name: "Tool"
        ),
    ]
)
SWIFT
    cat > Sources/App/Lock.swift <<'SWIFT'
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
import Synchronization
let secret = dlopen("libsecret-1.so.0", RTLD_NOW)
#endif
SWIFT
    echo 'print("tool")' > Sources/Tool/main.swift
    git add -A
}

expect() {  # expect pass|fail "description" [text the failure must name]
    local want=$1 what=$2 needle=${3:-} got output
    if output=$("$check" "$work/pkg" 2>&1); then got=pass; else got=fail; fi
    if [ "$got" = "$want" ] && { [ -z "$needle" ] || grep -qF -- "$needle" <<<"$output"; }; then
        passed=$((passed + 1)); echo "ok: $what ($got)"
    else
        failed=$((failed + 1)); echo "FAILED: $what: expected $want, got $got"
    fi
}

fresh; expect pass "a clean package"
fresh; mkdir -p Sources/app && echo '// x' > Sources/app/x.swift && git add -A; expect fail "folders Sources/App and Sources/app" "Sources/App / Sources/app"
fresh; sed -i 's/name: "Tool"/name: "app"/; s/targets: \["Tool"\]/targets: ["app"]/' Package.swift; expect fail "targets App and app" "names differ only by case: App / app"
fresh; printf 'import Synchronization\nlet m = Mutex(0)\n' > Sources/App/Counter.swift && git add -A; expect fail "an unguarded import Synchronization" "Counter.swift:1: import Synchronization"
fresh; printf '#if os(Linux) || os(macOS)\nimport Synchronization\n#endif\n' > Sources/App/Counter.swift && git add -A; expect fail "Synchronization under a guard that includes macOS" "Counter.swift:2: import Synchronization"
fresh; printf '#if canImport(Darwin)\nimport Darwin\n#else\nimport Glibc\n#endif\n' > Sources/App/C.swift && git add -A; expect fail "Glibc in an #else branch" "C.swift:4: import Glibc"
fresh; printf 'import Glibc\n' > Sources/App/C.swift && git add -A; expect fail "an unguarded import Glibc" "C.swift:1: import Glibc"
fresh; printf 'import Foundation\nlet h = dlopen("libsecret-1.so.0", 0)\n' > Sources/App/S.swift && git add -A; expect fail "an unguarded dlopen of libsecret" "S.swift:2:"
fresh; sed -i 's/, .visionOS(.v1)//' Package.swift; expect fail "no visionOS floor" "no floor for visionOS"
fresh; mkdir -p Tests/AppTests && printf 'import Synchronization\nlet m = Mutex(0)\n' > Tests/AppTests/Proxy.swift && git add -A; expect fail "an unguarded import Synchronization in a test target" "Tests/AppTests/Proxy.swift:1: import Synchronization"
fresh; mkdir -p Tests/AppTests && printf 'import struct Synchronization.Mutex\nlet m = Mutex(0)\n' > Tests/AppTests/Store.swift && git add -A; expect fail "import struct Synchronization.Mutex in a test target" "Tests/AppTests/Store.swift:1: import struct Synchronization.Mutex"
fresh; printf '@preconcurrency public import Synchronization\n' > Sources/App/Counter.swift && git add -A; expect fail "an attributed, public import Synchronization" "Counter.swift:1: @preconcurrency public import Synchronization"
fresh; printf 'import Foundation\nvar a = posix_spawn_file_actions_t()\n' > Sources/App/Spawn.swift && git add -A; expect fail "posix_spawn_file_actions_t() outside a guard" "Spawn.swift:2:"
fresh; mkdir -p Tests/AppTests && printf 'import Foundation\nvar a = posix_spawnattr_t()\n' > Tests/AppTests/Spawn.swift && git add -A; expect fail "posix_spawnattr_t() in a test target" "Tests/AppTests/Spawn.swift:2:"
fresh; printf '#if canImport(Darwin)\nvar a: posix_spawnattr_t? = nil\n#else\nvar a = posix_spawnattr_t()\n#endif\n' > Sources/App/Spawn.swift && git add -A; expect fail "posix_spawnattr_t() in an #else branch" "Spawn.swift:4:"
fresh; printf '#if canImport(Darwin)\nvar a: posix_spawnattr_t? = nil\n#elseif canImport(Glibc)\nvar a = posix_spawnattr_t()\n#endif\n' > Sources/App/Spawn.swift && git add -A; expect pass "posix_spawnattr_t() under canImport(Glibc)"

echo "check-portability self-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
