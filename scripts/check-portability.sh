#!/usr/bin/env bash
# Fails when the package would not build, or would misbehave, on an Apple platform — mistakes a
# Linux build cannot see:
#
#   1. two paths (or two target names) that differ only by case: a Mac's default file system
#      merges them on clone;
#   2. `import Synchronization` (in any form: `@preconcurrency`, `public`, `import struct
#      Synchronization.Mutex`) outside a Linux-only guard: Mutex and Atomic need macOS 15 /
#      iOS 18, above the floors Package.swift declares;
#   3. Linux-only imports or calls (Glibc, Musl, dlopen of libsecret) outside a platform guard;
#   4. an Apple platform the package does not declare a floor for (it would build with a default
#      floor below what the code needs);
#   5. `posix_spawn_file_actions_t()` / `posix_spawnattr_t()` outside a Linux-only guard: Glibc
#      imports them as structs, Darwin as optional opaque pointers that have no such initializer.
#
# Sources/ and Tests/ are both scanned: `swift build` on a Mac builds the test-support targets
# too, and `swift test` every test target.
#
# Usage: scripts/check-portability.sh [DIR]   (DIR: a git checkout, default the package root)
set -euo pipefail
root=${1:-"$(cd "$(dirname "$0")/.." && pwd)"}
cd "$root"

problems=()

# 1. Case-insensitive collisions among every tracked (or new, unignored) path and its folders.
paths=$( { git ls-files; git ls-files --others --exclude-standard; } 2>/dev/null | sort -u)
collisions=$(printf '%s\n' "$paths" | awk -F/ '{ p = ""; for (i = 1; i <= NF; i++) { p = (p == "" ? $i : p "/" $i); print p } }' \
    | sort -u | awk '{ l = tolower($0); if ((l in seen) && seen[l] != $0) print seen[l] " / " $0; seen[l] = $0 }')
if [ -n "$collisions" ]; then
    while IFS= read -r line; do problems+=("paths differ only by case: $line"); done <<<"$collisions"
fi
# Target names (not product names: the executable product may be `latchkey` beside the library
# `Latchkey`, since products are not folders of the package).
targets=$(grep -E 'name: *"[^"]+"' Package.swift | grep -vE '\.(library|executable|product|package)\(|Package\(' \
    | sed -E 's/.*name: *"([^"]+)".*/\1/' | sort -u)
target_collisions=$(printf '%s\n' "$targets" | awk '{ l = tolower($0); if ((l in seen) && seen[l] != $0) print seen[l] " / " $0; seen[l] = $0 }')
if [ -n "$target_collisions" ]; then
    while IFS= read -r line; do problems+=("Package.swift names differ only by case: $line"); done <<<"$target_collisions"
fi

# 2 and 3. Lines that must sit inside a Linux-only branch of #if / #elseif. A branch counts as
# Linux-only when its condition names os(Linux), canImport(Glibc) or canImport(Musl) and no
# Apple platform; #else branches never do.
linux_only_lines() {
    awk -v file="$1" '
        function linux(cond) { return cond ~ /os\(Linux\)|canImport\(Glibc\)|canImport\(Musl\)/ && cond !~ /os\((macOS|iOS|tvOS|watchOS|visionOS)\)|canImport\(Darwin\)|!/ }
        /^[ \t]*#if[ \t(]/     { depth++; guarded[depth] = linux($0); next }
        /^[ \t]*#elseif[ \t(]/ { guarded[depth] = linux($0); next }
        /^[ \t]*#else/         { guarded[depth] = 0; next }
        /^[ \t]*#endif/        { depth--; next }
        /^[ \t]*\/\//          { next }
        /^[ \t]*(@[A-Za-z_]+[ \t]+)*((public|package|internal|fileprivate|private)[ \t]+)?import[ \t]+((struct|class|enum|protocol|typealias|func|let|var)[ \t]+)?(Synchronization|Glibc|Musl)([ \t.]|$)/ \
            || /dlopen\("libsecret/ || /posix_spawn(_file_actions|attr)_t\(\)/ {
            ok = 0
            for (i = 1; i <= depth; i++) if (guarded[i]) ok = 1
            if (!ok) print file ":" NR ": " $0
        }
    ' "$1"
}
while IFS= read -r file; do
    [ -f "$file" ] || continue
    while IFS= read -r hit; do
        [ -n "$hit" ] && problems+=("outside a Linux-only guard: $hit")
    done < <(linux_only_lines "$file")
done < <(printf '%s\n' "$paths" | grep -E '^(Sources|Tests)/.*\.swift$' || true)

# 4. Every Apple platform has a declared floor.
for platform in macOS iOS tvOS watchOS visionOS; do
    grep -qE "\.$platform\(" Package.swift || problems+=("Package.swift declares no floor for $platform")
done

if [ ${#problems[@]} -gt 0 ]; then
    echo "check-portability: ${#problems[@]} problem(s) that would break the package on an Apple platform:" >&2
    printf '  %s\n' "${problems[@]}" >&2
    exit 1
fi
echo "check-portability: no case collisions, no unguarded Synchronization or Linux-only code (Sources/ and Tests/), every Apple platform has a floor"
