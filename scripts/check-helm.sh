#!/usr/bin/env bash
# Check the Helm chart: build or reuse helm (scripts/helm.sh), then lint, render and validate the chart
# against Kubernetes' schemas and the variables the processes read (test/helm-chart.helm-spec.ts).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ACM_HELM="$(bash scripts/helm.sh)"
export ACM_HELM
exec npx jest --config jest.helm.config.js "$@"
