#!/usr/bin/env bash
# Print the path of a helm binary, building it from its Go module (through the Go module proxy)
# the first time and reusing it afterwards. Used by scripts/check-helm.sh.
#
#   ACM_HELM_VERSION  helm.sh/helm/v3 module version (default v3.22.0)
#   ACM_GO            the go command                 (default: go on PATH, else /usr/local/go/bin/go)
set -euo pipefail

HELM_VERSION="${ACM_HELM_VERSION:-v3.22.0}"
CACHE_DIR="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/acm-runtime/helm-$HELM_VERSION"
HELM="$CACHE_DIR/helm"

die() {
  echo "helm.sh: $*" >&2
  exit 1
}

if [ -x "$HELM" ] && "$HELM" version --short >/dev/null 2>&1; then
  echo "$HELM"
  exit 0
fi

GO="${ACM_GO:-$(command -v go || echo /usr/local/go/bin/go)}"
[ -x "$GO" ] || die "no Go toolchain (set ACM_GO or install Go) to build helm $HELM_VERSION"

mkdir -p "$CACHE_DIR"
# One build at a time; a second caller waits and then reuses the binary.
exec 9>"$CACHE_DIR/.lock"
flock -w 1800 9 || die "another helm build has held $CACHE_DIR/.lock for 30 min"
if [ ! -x "$HELM" ]; then
  echo "helm.sh: building helm $HELM_VERSION with $GO (once, cached in $CACHE_DIR)" >&2
  # Build into a scratch directory and move atomically, so an interrupted build leaves no half binary.
  BUILD_DIR="$(mktemp -d "$CACHE_DIR/build.XXXXXX")"
  trap 'rm -rf "$BUILD_DIR"' EXIT
  CGO_ENABLED=0 GOBIN="$BUILD_DIR" GOFLAGS=-mod=mod "$GO" install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2 ||
    die "go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION failed"
  mv "$BUILD_DIR/helm" "$HELM"
fi
echo "$HELM"
