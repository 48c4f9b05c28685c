#!/usr/bin/env bash
# nunatak doctor -- <cmd>: target-binary and the attribution level its ELF sections allow
set -eu
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf 'int main(void) { return 0; }\n' >t.c
cc -g -o with_g t.c
cc -o no_g t.c
cp no_g stripped && strip stripped
printf '#!/bin/sh\nexec ./with_g\n' >wrapper.sh && chmod +x wrapper.sh
printf 'x' >not_exec

level() { "$NUNATAK" doctor -- "$@" | grep -E '^[a-z]+ +target-' ; }
level ./with_g | grep -q 'target-attribution debug information present: line-level attribution'
level ./no_g | grep -qE '^warning +target-attribution no debug information: attribution capped at function level'
level ./stripped | grep -qE '^warning +target-attribution stripped binary: attribution capped at symbol level'
level ./wrapper.sh | grep -qE '^warning +target-binary +target `./wrapper.sh` is not an ELF binary'
level ./not_exec | grep -qE '^missing +target-binary +target `./not_exec` is not executable'
level ./absent | grep -qE '^missing +target-binary +target `./absent` was not found'
# Launchers and wrappers are seen through.
level env FOO=1 mpirun -n 2 ./stripped | grep -q 'symbol level'
"$NUNATAK" doctor --json -- ./stripped | python3 -c '
import json, sys
d = json.load(sys.stdin)
g = [g for g in d["degradations"] if g["name"] == "target-attribution"]
assert g and g[0]["message"] == "stripped binary: attribution capped at symbol level", d["degradations"]
'
echo ok
