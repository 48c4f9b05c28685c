#!/bin/bash
# provenance.dependencies names the compiler that built the application (issue 22 item 9): its ELF .comment ("GCC: (...) 12.2.0") and its DW_AT_producer with the flags (-O2) of a gcc build (with -g and without); a script target (no ELF) adds neither
set -eu
command -v python3 >/dev/null || { echo "skip: python3 needed"; exit 2; }
command -v gcc >/dev/null || { echo "skip: gcc not installed"; exit 2; }
. "$NUNATAK_SOURCE_DIR/tests/fixtures/run/compiler_provenance_lib.sh"
gcc -g -O2 -o app-gcc app.c
check app-gcc "GCC: (" " -O2"
gcc -O1 -o app-nodebug app.c
check app-nodebug "GCC: (" ""
printf '#!/bin/sh\nexit 0\n' > app-script
chmod +x app-script
check app-script "" ""
echo ok
