#!/usr/bin/env bash
# Runs once, when the postgres container initialises an empty data directory (/docker-entrypoint-initdb.d).
# One login role and one schema per service, each role owning only its schema (decision 0009):
#   SNS_SERVICES        the services, e.g. "auth posts media social market" (the system catalog's names; compose sets
#                       it, DeploymentTests check it against Shared/Contract/SystemCatalog.swift); each gets role and
#                       schema <name>, with the password in <NAME>_DB_PASSWORD (e.g. POSTS_DB_PASSWORD)
#   ADMIN_DB_PASSWORD   sns-admin's role sns_admin: member of every service role, owns the schema "ops"
# pg_trgm (social's user search), cube + earthdistance + btree_gist (posts' distance search) are created here by the
# superuser: CREATE EXTENSION … WITH SCHEMA public needs CREATE on schema public (earthdistance: superuser), which PostgreSQL 15+ no longer grants to everyone; the service's own migration then
# finds it present (CREATE EXTENSION IF NOT EXISTS) and needs no privilege.
# Changing a password in .env later does not re-run this script: use ALTER ROLE … PASSWORD.
set -euo pipefail

: "${SNS_SERVICES:?10-sns-roles-and-schemas: SNS_SERVICES is not set (see docker-compose.yml)}"
read -r -a services <<<"$SNS_SERVICES"
for name in "${services[@]}" admin; do
  [[ "$name" =~ ^[a-z][a-z0-9_]*$ ]] || { echo "10-sns-roles-and-schemas: bad service name '$name'" >&2; exit 1; }
  variable="${name^^}_DB_PASSWORD"
  if [ -z "${!variable:-}" ]; then
    echo "10-sns-roles-and-schemas: $variable is not set (see .env.example)" >&2
    exit 1
  fi
done

# The statements, with every password passed as a psql variable (quoted by psql, never spliced into SQL here).
sql="CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;"$'\n'
sql+="CREATE EXTENSION IF NOT EXISTS cube WITH SCHEMA public;"$'\n'
sql+="CREATE EXTENSION IF NOT EXISTS earthdistance WITH SCHEMA public;"$'\n'
sql+="CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public;"$'\n'
args=(-v db="${POSTGRES_DB:-postgres}" -v admin_password="$ADMIN_DB_PASSWORD")
for name in "${services[@]}"; do
  variable="${name^^}_DB_PASSWORD"
  args+=(-v "${name}_password=${!variable}")
  sql+="CREATE ROLE $name LOGIN PASSWORD :'${name}_password';"$'\n'
  # Each service's schema, owned by its role. The migrator's CREATE SCHEMA IF NOT EXISTS still checks the
  # database's CREATE privilege before it notices the schema exists, hence the grant below.
  sql+="CREATE SCHEMA $name AUTHORIZATION $name;"$'\n'
done
roles="$(IFS=,; echo "${services[*]}")"
roles="${roles//,/, }"
sql+="CREATE ROLE sns_admin LOGIN PASSWORD :'admin_password';"$'\n'
sql+="CREATE SCHEMA ops AUTHORIZATION sns_admin;"$'\n'
sql+="REVOKE ALL ON DATABASE :\"db\" FROM PUBLIC;"$'\n'
sql+="GRANT CONNECT, TEMPORARY, CREATE ON DATABASE :\"db\" TO $roles, sns_admin;"$'\n'
# The operator's tool reads every outbox and resets read models (decision 0008): it acts as each service.
sql+="GRANT $roles TO sns_admin;"$'\n'

psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-postgres}" \
  "${args[@]}" <<<"$sql"

echo "10-sns-roles-and-schemas: roles and schemas for $roles and sns_admin created"
