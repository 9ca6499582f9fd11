#!/usr/bin/env bash
# Property-based check of the public API against its OpenAPI document (docs/api/openapi.json, served by the
# gateway at /v1/openapi.json) with schemathesis: no 5xx (not_a_server_error) and every response as documented
# (response_schema_conformance, status_code_conformance, content_type_conformance: a documented status, content
# type and JSON schema). See decision 0010.
#
#   deploy/local/schemathesis.sh [--gateway URL] [--api-key KEY] [extra `st run` options, e.g. --seed 1 -n 50]
#
# Runs against a stack that is already up: by default the dev profile's gateway (./sns start). `./sns check-api`
# starts a fresh private stack (profile `check`) and runs this against it. Installs schemathesis into a venv under
# .local/ on first use (PyPI). Signs up throwaway accounts through the gateway: one for every operation but logout
# and withdraw, which end the caller's session and so get a run each, with an account of their own.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
GATEWAY="${SNS_CHECK_GATEWAY_URL:-http://127.0.0.1:${SNS_GATEWAY_PORT:-8080}}"
API_KEY="${SNS_CHECK_API_KEY:-${SNS_API_KEY:-sns-dev-key}}"
VENV="$ROOT/.local/schemathesis"
# The version this document was checked with; another 4.x may report differently.
SCHEMATHESIS_SPEC="${SNS_SCHEMATHESIS_SPEC:-schemathesis==4.32.5}"
MAX_EXAMPLES="${SNS_CHECK_MAX_EXAMPLES:-50}"
REPORT_DIR="${SNS_CHECK_REPORT_DIR:-$ROOT/.local/schemathesis-report}"
WORK_DIR="$ROOT/.local/schemathesis-work"

extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --gateway) GATEWAY="$2"; shift 2 ;;
    --api-key) API_KEY="$2"; shift 2 ;;
    -n|--max-examples) MAX_EXAMPLES="$2"; shift 2 ;;
    *) extra+=("$1"); shift ;;
  esac
done

say() { printf '[check-api %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

installed="$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null || true)"
if [ "schemathesis==$installed" != "$SCHEMATHESIS_SPEC" ]; then
  command -v python3 >/dev/null || { say "python3 is required (apt-get install python3 python3-venv)"; exit 1; }
  say "installing $SCHEMATHESIS_SPEC into $VENV (PyPI)"
  [ -x "$VENV/bin/pip" ] || python3 -m venv "$VENV" || { say "python3 -m venv failed (apt-get install python3-venv)"; exit 1; }
  "$VENV/bin/pip" install -q --disable-pip-version-check "$SCHEMATHESIS_SPEC"
fi

curl --max-time 5 -fsS -o /dev/null "$GATEWAY/v1/openapi.json" || { say "no gateway serving /v1/openapi.json at $GATEWAY (start a stack: ./sns start)"; exit 1; }

# A fresh account through the gateway; prints its access token.
account_token() {
  local nick="st$(date +%s)$RANDOM$1" answer
  curl --max-time 5 -fsS "$GATEWAY/v1/users/join" -H "SesacKey: $API_KEY" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$nick@example.com\",\"password\":\"password123\",\"nick\":\"$nick\"}" >/dev/null
  answer="$(curl --max-time 5 -fsS "$GATEWAY/v1/users/login" -H "SesacKey: $API_KEY" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$nick@example.com\",\"password\":\"password123\"}")"
  "$VENV/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["accessToken"])' <<<"$answer"
}

# One worker: with two, CPython 3.11's ast.parse (used by hypothesis from several threads) was seen failing with
# "AST constructor recursion depth mismatch", reported by schemathesis as runtime errors of random operations.
run() {
  local token="$1"; shift
  # From a folder of its own: schemathesis keeps a cache of found failures in ./.schemathesis.
  (cd "$WORK_DIR" && "$VENV/bin/st" run "$GATEWAY/v1/openapi.json" --url "$GATEWAY" \
    --header "SesacKey: $API_KEY" --header "Authorization: $token" \
    --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
    --max-examples "$MAX_EXAMPLES" \
    --request-timeout 30 --workers 1 --no-color \
    --report junit --report-dir "$REPORT_DIR" "$@" "${extra[@]}")
}

mkdir -p "$REPORT_DIR" "$WORK_DIR"
say "schemathesis against $GATEWAY (max $MAX_EXAMPLES examples per operation)"
status=0
# Stateful: sequences along the document's links (create a post → read, edit, like, comment, delete it …).
run "$(account_token a)" --phases examples,coverage,fuzzing,stateful --exclude-operation-id logout --exclude-operation-id withdraw --report-junit-path "$REPORT_DIR/main.xml" || status=$?
for operation in logout withdraw; do
  say "$operation ends the caller's session: a run of its own with an account of its own"
  run "$(account_token "$operation")" --phases examples,coverage,fuzzing --include-operation-id "$operation" --report-junit-path "$REPORT_DIR/$operation.xml" || status=$?
done
if [ $status = 0 ]; then say "passed (reports: $REPORT_DIR)"; else say "FAILED (exit $status; reports: $REPORT_DIR)"; fi
exit $status
