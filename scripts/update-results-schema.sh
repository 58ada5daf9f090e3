#!/usr/bin/env bash
# Regenerates what the results model (src/lab/model) generates: the committed JSON Schema
# (src/lab/results/results.schema.json) and the field tables of docs/results-schema.md. Run it after
# adding or changing a field; tests/lab/results_model_test.cpp fails while they are out of step.
#   scripts/update-results-schema.sh [BUILD_DIR]   (default build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
cmake --build "$build" --target alloclab_cli
"$build/alloclab" schema > src/lab/results/results.schema.json
tables=$(mktemp)
page=$(mktemp)
trap 'rm -f "$tables" "$page"' EXIT
"$build/alloclab" schema --markdown > "$tables"
awk -v tables="$tables" '
  /^<!-- BEGIN field tables/ { print; while ((getline line < tables) > 0) print line; skipping = 1; next }
  /^<!-- END field tables -->/ { skipping = 0 }
  !skipping { print }' docs/results-schema.md > "$page"
cp "$page" docs/results-schema.md
echo "regenerated src/lab/results/results.schema.json and the tables of docs/results-schema.md"
