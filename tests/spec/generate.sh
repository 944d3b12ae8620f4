#!/usr/bin/env bash
# Generates the JSON Schemas of the MCP protocol revisions beside this script from their
# TypeScript sources, the way the spec repository does (its scripts/generate-schemas.ts):
#
#   typescript-json-schema --defaultNumberType integer --required --skipLibCheck schema.ts "*"
#
# then, for revisions from 2025-11-25 on, moved to JSON Schema draft 2020-12 by three textual
# replacements: the draft-07 `$schema` URL becomes the 2020-12 one, `"definitions":` becomes
# `"$defs":` and `#/definitions/` becomes `#/$defs/`.
#
#   tests/spec/generate.sh           writes schema-<version>.json for each schema-<version>.ts
#   tests/spec/generate.sh --check   fails if a committed schema-<version>.json differs
#
# The generator is pinned in package.json / package-lock.json here; the first run installs it
# with `npm ci` (again whenever package-lock.json changes). The Rust tests read only the
# committed .json files and never need npm.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
VERSIONS=(2025-11-25 2026-07-28)

check=""
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

if ! cmp -s "$HERE/package-lock.json" "$HERE/node_modules/.installed-package-lock.json"; then
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error) >&2
  cp "$HERE/package-lock.json" "$HERE/node_modules/.installed-package-lock.json"
fi
TJS="$HERE/node_modules/.bin/typescript-json-schema"

status=0
for version in "${VERSIONS[@]}"; do
  ts="schema-$version.ts"
  json="$HERE/schema-$version.json"
  generated="$(mktemp)"
  # Run from this directory with a relative path, as the spec repository does.
  (cd "$HERE" && "$TJS" --defaultNumberType integer --required --skipLibCheck "$ts" "*") |
    sed -e 's|http://json-schema\.org/draft-07/schema#|https://json-schema.org/draft/2020-12/schema|g' \
      -e 's|"definitions":|"$defs":|g' \
      -e 's|#/definitions/|#/$defs/|g' >"$generated"
  if [[ -n "$check" ]]; then
    if cmp -s "$generated" "$json"; then
      echo "schema-$version.json is up to date"
    else
      echo "schema-$version.json differs from what $ts generates; run tests/spec/generate.sh" >&2
      status=1
    fi
    rm -f "$generated"
  else
    cat "$generated" >"$json"
    rm -f "$generated"
    echo "wrote schema-$version.json"
  fi
done
exit "$status"
