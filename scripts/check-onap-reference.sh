#!/usr/bin/env bash
# Says, in one line, where ONAP's reference files come from when the conformance suite will not find them.
# The suite reads them from ONAP_REFERENCE_DIR, else ../shared/reference/onap beside this checkout
# (test/conformance/onap-files.ts). Exit 0 when they are there, 1 (after the line) when not.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dir="${ONAP_REFERENCE_DIR:-../shared/reference/onap}"
if [ -d "$dir/csit-data" ]; then
  exit 0
fi
echo "ONAP's reference files are not in ${dir}: they are data files of ONAP's public onap/policy-clamp repository (Apache-2.0; csit-data/ from csit/resources/tests/data, compositions/, tosca-types/, ...), kept outside this repository; put them in ../shared/reference/onap beside this checkout or set ONAP_REFERENCE_DIR to their folder, else the conformance suite fails."
exit 1
