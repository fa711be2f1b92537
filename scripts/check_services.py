"""Say which service the tests cannot reach, and how to start it."""

from __future__ import annotations

import os
import sys
from urllib.parse import urlparse

import psycopg
import redis


def main() -> int:
    problems = []
    database_url = os.environ["DATABASE_URL"]
    try:
        dsn = database_url.replace("postgres://", "postgresql://", 1)
        parsed = urlparse(dsn)
        with psycopg.connect(dsn.replace(parsed.path, "/postgres"), connect_timeout=5) as conn:
            conn.execute("SELECT 1")
            can_create = conn.execute(
                "SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user"
            ).fetchone()[0]
        if not can_create:
            problems.append(f"PostgreSQL role in {database_url} cannot create the test database "
                            "(grant CREATEDB or use the postgres superuser).")
    except psycopg.Error as error:
        problems.append(
            f"PostgreSQL is unreachable at {database_url}: {str(error).strip()}\n"
            "   start it with: pg_ctlcluster --skip-systemctl-redirect "
            "$(ls /etc/postgresql) main start   (or set DATABASE_URL)")
    redis_url = os.environ["REDIS_URL"]
    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=5).ping()
    except redis.RedisError as error:
        problems.append(
            f"Redis is unreachable at {redis_url}: {error}\n"
            "   start it with: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 "
            '--save "" --appendonly no   (or set REDIS_URL)')
    for problem in problems:
        print(f"!! {problem}", file=sys.stderr)
    if not problems:
        print(f"   PostgreSQL and Redis reachable ({database_url}, {redis_url})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
