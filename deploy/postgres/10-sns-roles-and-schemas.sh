#!/usr/bin/env bash
# Runs once, when the postgres container initialises an empty data directory (/docker-entrypoint-initdb.d).
# One login role and one schema per service, each role owning only its schema (decision 0009):
#   auth, posts, media, social, market  — the services (they run their own migrations at start)
#   sns_admin                           — sns-admin: member of every service role, owns the schema "ops"
# pg_trgm (social's user search) is created here by the superuser: CREATE EXTENSION … WITH SCHEMA public needs
# CREATE on schema public, which PostgreSQL 15+ no longer grants to everyone; the service's own migration then
# finds it present (CREATE EXTENSION IF NOT EXISTS) and needs no privilege.
# Changing a password in .env later does not re-run this script: use ALTER ROLE … PASSWORD.
set -euo pipefail

for variable in AUTH_DB_PASSWORD POSTS_DB_PASSWORD MEDIA_DB_PASSWORD SOCIAL_DB_PASSWORD MARKET_DB_PASSWORD ADMIN_DB_PASSWORD; do
  if [ -z "${!variable:-}" ]; then
    echo "10-sns-roles-and-schemas: $variable is not set (see .env.example)" >&2
    exit 1
  fi
done

psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-postgres}" \
  -v db="${POSTGRES_DB:-postgres}" \
  -v auth_password="$AUTH_DB_PASSWORD" -v posts_password="$POSTS_DB_PASSWORD" \
  -v media_password="$MEDIA_DB_PASSWORD" -v social_password="$SOCIAL_DB_PASSWORD" \
  -v market_password="$MARKET_DB_PASSWORD" -v admin_password="$ADMIN_DB_PASSWORD" <<'SQL'
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

CREATE ROLE auth   LOGIN PASSWORD :'auth_password';
CREATE ROLE posts  LOGIN PASSWORD :'posts_password';
CREATE ROLE media  LOGIN PASSWORD :'media_password';
CREATE ROLE social LOGIN PASSWORD :'social_password';
CREATE ROLE market LOGIN PASSWORD :'market_password';
CREATE ROLE sns_admin LOGIN PASSWORD :'admin_password';

-- Each service's schema, owned by its role. The migrator's CREATE SCHEMA IF NOT EXISTS still checks the
-- database's CREATE privilege before it notices the schema exists, hence the grant below.
CREATE SCHEMA auth   AUTHORIZATION auth;
CREATE SCHEMA posts  AUTHORIZATION posts;
CREATE SCHEMA media  AUTHORIZATION media;
CREATE SCHEMA social AUTHORIZATION social;
CREATE SCHEMA market AUTHORIZATION market;
CREATE SCHEMA ops    AUTHORIZATION sns_admin;

REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
GRANT CONNECT, TEMPORARY, CREATE ON DATABASE :"db" TO auth, posts, media, social, market, sns_admin;

-- The operator's tool reads every outbox and resets read models (decision 0008): it acts as each service.
GRANT auth, posts, media, social, market TO sns_admin;
SQL

echo "10-sns-roles-and-schemas: roles and schemas for auth, posts, media, social, market and sns_admin created"
