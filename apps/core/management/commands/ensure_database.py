"""``python manage.py ensure_database``: create the configured PostgreSQL database if it does not exist yet.

SQLite files are created by ``migrate`` itself; for PostgreSQL a fresh server has no ``skyplan`` database,
so ``make run`` calls this first.  It connects to the server's ``postgres`` database to create it.
"""

from django.core.management.base import BaseCommand, CommandError
from django.db import connections


class Command(BaseCommand):
    help = "Create the configured PostgreSQL database when it is missing (no-op for SQLite)."

    def handle(self, *args, **options):
        settings_dict = connections["default"].settings_dict
        if settings_dict["ENGINE"] != "django.db.backends.postgresql":
            return
        import psycopg
        from psycopg import sql

        name = settings_dict["NAME"]
        params = {
            "host": settings_dict.get("HOST") or None, "port": settings_dict.get("PORT") or None,
            "user": settings_dict.get("USER") or None, "password": settings_dict.get("PASSWORD") or None,
        }
        try:
            with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
                exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
                if not exists:
                    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
                    self.stdout.write(f"Created PostgreSQL database {name!r}")
        except psycopg.Error as exc:
            raise CommandError(f"DATABASE_URL: cannot reach PostgreSQL to create {name!r}: {exc}") from None
