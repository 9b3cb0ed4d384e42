#!/usr/bin/env bash
# Shows that scripts/check-tests.sh passes clean tests and fails on each planted pattern: an
# elapsed-time assertion (three spellings), a fixed port, a stopped server's port bound again by
# hand, and a sleep followed by an assertion; and that a poll loop's sleep and an allowed line
# pass. Prints "N passed, N failed".
set -uo pipefail
check="$(cd "$(dirname "$0")" && pwd)/check-tests.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

expect() {  # expect pass|fail NAME SWIFT-BODY [ALLOW-LINE]
    local outcome=$1 name=$2 body=$3 allow=${4:-}
    rm -rf "$work/Tests" && mkdir -p "$work/Tests"
    printf 'import Testing\n@Test func planted() async throws {\n%s\n}\n' "$body" > "$work/Tests/Planted.swift"
    printf '%s\n' "$allow" > "$work/allow"
    if "$check" "$work/Tests" "$work/allow" > "$work/out" 2>&1; then result=pass; else result=fail; fi
    if [ "$result" = "$outcome" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "check-tests-selftest: FAILED: $name: expected $outcome, got $result"
        cat "$work/out"
    fi
}

expect pass "clean test" '    let clock = ManualServerClock()
    #expect(clock.sleeps == [.milliseconds(300)])'
expect fail "elapsed against a duration literal" '    let (waited, _) = try await Self.elapsed { try await server.request(.GET, "/") }
    #expect(waited < .seconds(3))'
expect fail "a clock reading in an assertion" '    let started = ContinuousClock.now
    #expect(ContinuousClock.now - started < .seconds(9))'
expect fail "a measured value compared" '    let took = Date().timeIntervalSince(start)
    #expect(took < 5)'
expect fail "a fixed port" '    let server = try await TestAuthServer.start(port: 8080)'
expect fail "a fixed --port" '    _ = try await CommandRunner.run(["serve", "--port", "9999"])'
expect fail "a port bound again by hand" '    let second = try await TestAuthServer.start(dataDirectory: first.dataDirectory, port: first.port)'
expect fail "sleep, then assert" '    try await Task.sleep(for: .milliseconds(100))
    #expect(done)'
expect pass "a poll loop" '    while !done, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(20))
    }
    #expect(done)'
expect pass "an allowed line" '    try await Task.sleep(for: .milliseconds(100))
    #expect(!happened)' 'sleep-assert | '"$work"'/Tests/Planted.swift | Task.sleep(for: .milliseconds(100)) | absence check'
expect fail "an allowed line that no longer exists" '    #expect(true)' 'sleep-assert | '"$work"'/Tests/Planted.swift | Task.sleep(for: .milliseconds(100)) | absence check'

echo "check-tests-selftest: $passed passed, $failed failed"
[ "$failed" = 0 ]
