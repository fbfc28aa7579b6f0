#!/usr/bin/env bash
# Builds the library jars of an earlier commit into a folder, for the benchmark's --baseline:
#   scripts/baseline-jars.sh COMMIT [DIR]      (DIR defaults to benchmarks/target/baseline-COMMIT)
# The commit's tree is exported with git archive into a temporary folder (the repository and its
# work tree are not touched), built there with Maven (package, no tests, nothing installed), and
# its core, mutex, semaphore, readwrite and multilock jars are copied to DIR with a COMMIT file
# naming the commit. Extra Maven arguments may come in MVN_ARGS (e.g. MVN_ARGS=-o).
set -euo pipefail
commit=${1:?usage: scripts/baseline-jars.sh COMMIT [DIR]}
root=$(git rev-parse --show-toplevel)
short=$(git -C "$root" rev-parse --short "$commit^{commit}")
dir=${2:-$root/benchmarks/target/baseline-$short}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git -C "$root" archive "$short" | tar -x -C "$work"
(cd "$work" && mvn -B -q ${MVN_ARGS:-} -pl core,mutex,semaphore,readwrite,multilock -am package -DskipTests \
    -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Djapicmp.skip=true)
mkdir -p "$dir"
for m in core mutex semaphore readwrite multilock; do
    cp "$work/$m/target/zklock-$m-"*[0-9T].jar "$dir/"
done
echo "$short" > "$dir/COMMIT"
echo "$dir"
