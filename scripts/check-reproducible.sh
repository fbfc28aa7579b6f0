#!/usr/bin/env bash
# check-reproducible.sh: builds every module twice from the same sources and fails unless the
# two builds made the same bytes.
#
# The sources (tracked files and untracked ones git does not ignore, as they are in the work
# tree now) are copied to two directories at different paths, and each copy is built with
# `mvn -B -q package -DskipTests`: an absolute path or a clock that leaks into an artifact shows
# up as a difference. What is compared is every file the build leaves at the top of a module's
# target/ directory that is published or shipped: jars (classes, sources, javadoc, tests, the
# CLI's shaded jar) and the CycloneDX SBOMs. For a jar that differs, the entries that differ are
# listed. Nothing is installed: dependencies come from the local repository, the modules from
# the reactor.
#   MVN_ARGS   extra Maven arguments for the builds the script makes, e.g. -o
#   KEEP=1     keep the two copies and their outputs (printed at the end)
#   BUILT=1    the first build is the one the work tree has just had (CI's `mvn -B verify`, whose
#              packaging is the same): its artifacts are compared with one build of a copy at
#              another path, which halves the time. Only right on a tree whose target/ holds
#              nothing but that build's output, as in a fresh clone.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/zklock-repro.XXXXXX")"
if [ "${KEEP:-0}" != 1 ]; then
    trap 'rm -rf "$work"' EXIT
fi

copy() {
    mkdir -p "$2"
    (cd "$1" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r tar -cf - --) \
        | tar -xf - -C "$2"
}

build() {
    local src="$1" out="$2" log="$work/$(basename "$1").log"
    # shellcheck disable=SC2086
    if ! (cd "$src" && mvn -B -q package -DskipTests ${MVN_ARGS:-}) >"$log" 2>&1; then
        cat "$log" >&2
        echo "check-reproducible: the build in $src failed (output above)" >&2
        exit 2
    fi
    collect "$src" "$out"
}

# copies the published artifacts a build left in $1's modules to $2/<module>/
collect() {
    local src="$1" out="$2"
    mkdir -p "$out"
    (cd "$src" && find . -path '*/target/*' -prune -o -name pom.xml -print) | while read -r pom; do
        local module target
        module="$(dirname "$pom")"
        target="$src/$module/target"
        [ -d "$target" ] || continue
        mkdir -p "$out/$module"
        find "$target" -maxdepth 1 -type f \( -name '*.jar' ! -name 'original-*' -o -name '*cyclonedx*.json' \) \
            -exec cp {} "$out/$module/" \;
    done
}

# the directories have names of different lengths and depths on purpose
start=$(date +%s)
if [ "${BUILT:-0}" = 1 ]; then
    collect "$root" "$work/out-a"
    if [ -z "$(find "$work/out-a" -type f)" ]; then
        echo "check-reproducible: BUILT=1, but the work tree has no built artifacts: build it first" >&2
        exit 2
    fi
else
    copy "$root" "$work/a"
    build "$work/a" "$work/out-a"
fi
copy "$root" "$work/bb/b"
build "$work/bb/b" "$work/out-b"
took=$(( $(date +%s) - start ))

# the same set of files, then the same bytes in each
if ! diff <(cd "$work/out-a" && find . -type f | sort) <(cd "$work/out-b" && find . -type f | sort) >"$work/names.diff"; then
    echo "check-reproducible: the two builds made different files:" >&2
    cat "$work/names.diff" >&2
    exit 1
fi
count=0
differ=0
while read -r f; do
    count=$((count + 1))
    if ! cmp -s "$work/out-a/$f" "$work/out-b/$f"; then
        differ=$((differ + 1))
        echo "differs: ${f#./}" >&2
        case "$f" in
            *.jar)
                rm -rf "$work/x" && mkdir -p "$work/x/a" "$work/x/b"
                (cd "$work/x/a" && jar xf "$work/out-a/$f")
                (cd "$work/x/b" && jar xf "$work/out-b/$f")
                diff -rq "$work/x/a" "$work/x/b" \
                    | sed -e "s|^Files $work/x/a/\(.*\) and .* differ\$|    entry differs: \1|" -e "s|$work/x/||g" \
                    | head -n 10 >&2 || true
                # same contents but different bytes: the entries' times, order or attributes
                diff <(jar tvf "$work/out-a/$f") <(jar tvf "$work/out-b/$f") \
                    | head -n 10 | sed 's/^/    /' >&2 || true
                ;;
            *)
                diff "$work/out-a/$f" "$work/out-b/$f" | head -n 20 | sed 's/^/    /' >&2 || true
                ;;
        esac
    fi
done < <(cd "$work/out-a" && find . -type f | sort)

if [ "${KEEP:-0}" = 1 ]; then
    echo "check-reproducible: kept $work"
fi
if [ "$differ" -gt 0 ]; then
    echo "check-reproducible: $differ of $count artifacts differ between two builds of the same sources (${took}s)" >&2
    exit 1
fi
echo "check-reproducible: $count artifacts, byte for byte the same in two builds (${took}s)"
