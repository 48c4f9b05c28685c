#!/bin/bash
# `nunatak run --json -- ./app | jq .exit_code` reads one JSON document (the application's stdout goes to stderr); its own case, so a machine without jq skips it visibly (exit 2)
set -eu
command -v jq >/dev/null || { echo "skip: jq is not installed (apt-get install jq)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf '#!/bin/sh\necho "app says hello"\nexit 3\n' > app.sh
chmod +x app.sh
set +e
"$NUNATAK" run --json -- ./app.sh 2>/dev/null | jq -e .exit_code > jq.txt
set -e
[ "$(cat jq.txt)" = 3 ] || { echo "FAIL: jq could not read the document: $(cat jq.txt)"; exit 1; }
echo ok
