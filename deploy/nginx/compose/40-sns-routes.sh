#!/bin/sh
# Runs in the nginx container before nginx starts (/docker-entrypoint.d). Turns the shared routes
# (deploy/nginx/routes.conf, mounted at /etc/nginx/sns/routes.conf) into their compose form, where each
# `proxy_pass http://<service>;` names the variable $sns_upstream_<service> that nginx.conf sets to the
# service's Docker DNS name, so that replicas are re-resolved (see nginx.conf).
#   usage (also outside a container): 40-sns-routes.sh [routes.conf] [output]
set -eu
source_file="${1:-/etc/nginx/sns/routes.conf}"
target_file="${2:-/etc/nginx/sns-routes.conf}"

sed -e 's#proxy_pass http://\([a-z][a-z0-9_]*\);#proxy_pass http://$sns_upstream_\1;#' "$source_file" >"$target_file.tmp"
if grep -n 'proxy_pass http://[a-z]' "$target_file.tmp" >&2; then
  echo "40-sns-routes: the proxy_pass lines above name no service variable; routes.conf changed shape" >&2
  rm -f "$target_file.tmp"
  exit 1
fi
mv "$target_file.tmp" "$target_file"
echo "40-sns-routes: $(grep -c 'proxy_pass http://\$sns_upstream_' "$target_file") routes written to $target_file"
