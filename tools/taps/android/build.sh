#!/usr/bin/env bash
# Builds the Android (Java) field tap with Java 8 source level and runs its self-test.
# Usage: tools/taps/android/build.sh [OUT]   (default OUT: .build/java under the project)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../../.build/java}"
command -v javac >/dev/null || { echo "javac is missing: apt-get install -y default-jdk-headless" >&2; exit 1; }
mkdir -p "$out"
javac --release 8 -Xlint:all -Xlint:-options -Werror -d "$out" $(find "$here/src" -name '*.java')
# The self-test's folders and files go in a folder of their own, removed at exit.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/tap-selftest.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
java -Djava.io.tmpdir="$scratch" -cp "$out" com.bridgescope.tap.TapSelfTest
