#!/usr/bin/env bash
# Prepares a docker-compose deployment's secrets; safe to run again (it never replaces what exists).
#   - .env: every value "generate-me" becomes a random hex string (passwords, SesacKey, Grafana's admin)
#   - $SNS_SECRETS_DIR (./secrets): jwt-private.pem + jwt-public.pem (ES256, P-256), media-signing.key (32 random
#     bytes as hex), portone-imp-secret (random; for production write PortOne's REST API secret into it)
# Needs openssl. Run from anywhere: paths are relative to the repository root.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

command -v openssl >/dev/null || { echo "generate-secrets: openssl is needed" >&2; exit 1; }
[ -f .env ] || { echo "generate-secrets: no .env; first: cp .env.example .env" >&2; exit 1; }

random_hex() { openssl rand -hex "$1"; }

# 1. Placeholders in .env, one fresh value each.
while grep -q '=generate-me$' .env; do
  line="$(grep -n '=generate-me$' .env | head -n 1 | cut -d: -f1)"
  sed -i "${line}s/=generate-me\$/=$(random_hex 24)/" .env
  echo "generate-secrets: .env line $line: $(sed -n "${line}p" .env | cut -d= -f1) generated"
done

# 2. Key files. The directory is private to the operator; the files themselves must be readable by the
#    containers' non-root user (uid 10001), because compose bind-mounts them unchanged to /run/secrets/.
dir="$(sed -n 's/^SNS_SECRETS_DIR=//p' .env | tail -n 1)"
dir="${dir:-./secrets}"
mkdir -p "$dir"
chmod 700 "$dir"
if [ ! -s "$dir/jwt-private.pem" ]; then
  openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$dir/jwt-private.pem"
  openssl ec -in "$dir/jwt-private.pem" -pubout -out "$dir/jwt-public.pem" 2>/dev/null
  echo "generate-secrets: ES256 key pair for access tokens written to $dir/jwt-private.pem, jwt-public.pem"
fi
if [ ! -s "$dir/media-signing.key" ]; then
  random_hex 32 >"$dir/media-signing.key"
  echo "generate-secrets: media path-signing key written to $dir/media-signing.key"
fi
if [ ! -s "$dir/portone-imp-secret" ]; then
  random_hex 16 >"$dir/portone-imp-secret"
  echo "generate-secrets: $dir/portone-imp-secret written (sandbox value; put PortOne's REST API secret there for production)"
fi
chmod 644 "$dir"/jwt-private.pem "$dir"/jwt-public.pem "$dir"/media-signing.key "$dir"/portone-imp-secret
echo "generate-secrets: done; next: docker compose up -d"
