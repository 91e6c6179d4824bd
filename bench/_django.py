"""Django for the benchmarks that time the app itself: production-like settings and a throwaway test database.

Imported by a bench script run as ``python bench/NAME.py`` (its folder is on ``sys.path``) before it imports Django.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["ROOT", "throwaway_database"]

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "apps.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-not-a-secret")  # production-like: DEBUG stays off


@contextmanager
def throwaway_database() -> Iterator[None]:
    """Set Django up on a new test database (migrated, never the real one) and drop that database afterwards."""
    import django

    django.setup()
    from django.conf import settings
    from django.test.utils import get_runner, setup_test_environment

    setup_test_environment()
    runner = get_runner(settings)(verbosity=0, interactive=False)
    old = runner.setup_databases()
    try:
        yield
    finally:
        runner.teardown_databases(old)
