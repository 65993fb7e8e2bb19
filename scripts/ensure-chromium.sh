#!/usr/bin/env bash
# Browser tests drive Debian's Chromium through playwright-core, which downloads no browser of its own.
# Prints the executable's path; installs the package when it is missing (needs root and apt).
set -euo pipefail

find_chromium() {
  for candidate in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

if find_chromium; then
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  echo "ensure-chromium: no chromium and no apt-get; set CHROMIUM_PATH to a Chromium executable" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

echo "ensure-chromium: installing Debian's chromium" >&2
export DEBIAN_FRONTEND=noninteractive
# Lock waits let two worktrees (or CI steps) call this script at once.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
find_chromium
