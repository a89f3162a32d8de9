#!/usr/bin/env bash
# Build bench/ns3/dumbbell.cc against the PyPI `ns3` wheel into bench/build/ns3-dumbbell,
# only when the binary is missing or older than its source (or this script).
# Installs the wheel into the project virtualenv if it is not there yet.
# Prints the path of the binary on stdout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
venv="${VENV:-$root/.venv}"
src="$here/ns3/dumbbell.cc"
out="$here/build/ns3-dumbbell"

site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
ns="$site/ns3"
if [ ! -d "$ns/include/ns3" ]; then
    echo "installing the ns3 wheel into $venv" >&2
    "$venv/bin/pip" install --quiet 'ns3==3.44.*' >&2
fi

# The libraries carry the ns-3 version in their names (libns3.44-core.so).
core="$(ls "$ns"/lib64/libns3.*-core.so | head -n 1)"
v="$(basename "$core" | sed 's/^libns3\.\(.*\)-core\.so$/\1/')"

if [ -x "$out" ] && [ "$out" -nt "$src" ] && [ "$out" -nt "$0" ]; then
    echo "$out"
    exit 0
fi
mkdir -p "$here/build"
echo "building $out" >&2
# The wheel is a release build with logging and asserts compiled in: the defines must match.
g++ -O2 -std=c++20 -DNS3_BUILD_PROFILE_RELEASE -DNS3_LOG_ENABLE -DNS3_ASSERT_ENABLE \
    -I"$ns/include" "$src" -o "$out.tmp" \
    -L"$ns/lib64" -Wl,-rpath,"$ns/lib64" \
    -lns3.$v-applications -lns3.$v-internet -lns3.$v-point-to-point \
    -lns3.$v-traffic-control -lns3.$v-network -lns3.$v-core -lns3.$v-bridge
mv "$out.tmp" "$out"
echo "$out"
