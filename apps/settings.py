"""Skyplan settings, configured only from the environment (see .env.example).

With no DATABASE_URL / CELERY_BROKER_URL the app uses embedded defaults: a SQLite
file and a file-system Celery broker under ``var/``.  With them set it uses
PostgreSQL and Redis (as the tests and production do).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF, UNSAFE_HASHES
from django.core.exceptions import ImproperlyConfigured

from apps.env import env_bool, env_int, env_int_table, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("SKYPLAN_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

# Off unless asked for: `make run` sets DJANGO_DEBUG=1 for the local development server.
DEBUG = env_bool("DJANGO_DEBUG", False)
# pytest (which sets PYTEST_VERSION for itself and the worker processes it starts) runs like production, DEBUG off,
# but needs no secret.
_TESTING = bool(env_str("PYTEST_VERSION"))
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
# Only the web server signs anything (sessions, CSRF tokens, messages): it refuses to start without the secret
# (apps/wsgi.py).  Workers sign nothing, so a worker host is given no secret (README: Several hosts) and gets a random
# key of its own, useless to anyone who reads it off that host.
SKYPLAN_SECRET_KEY_MISSING = not SECRET_KEY and not (DEBUG or _TESTING)
SECRET_KEY_MISSING_MESSAGE = (
    "DJANGO_SECRET_KEY is not set. In production set it to a long random string on the web server, e.g. "
    "DJANGO_SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))') (workers need none); "
    "for local development set DJANGO_DEBUG=1 instead (`make run` does)."
)
if not SECRET_KEY:
    if DEBUG or _TESTING:
        SECRET_KEY = "dev-only-insecure-key-set-DJANGO_SECRET_KEY-in-production"
    else:
        SECRET_KEY = secrets.token_urlsafe(50)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

# Transport security.  Cookies are sent over HTTPS only unless DEBUG is on; HSTS (sent on HTTPS responses only)
# for a year.  Behind a TLS-terminating proxy that sets X-Forwarded-Proto, set DJANGO_TRUST_X_FORWARDED_PROTO=1;
# DJANGO_SECURE_SSL_REDIRECT=1 redirects plain HTTP to HTTPS (except the health check, for load balancers).
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", False)
SECURE_REDIRECT_EXEMPT = [r"^health/$"]
if env_bool("DJANGO_TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 0 if DEBUG else 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
# The workload editor posts, for every fact of every stage, its value and the inputs of a new source (9 fields):
# about 300 a stage, so Django's default of 1,000 refuses a four-stage workload.  Still a bound on a request.
DATA_UPLOAD_MAX_NUMBER_FIELDS = env_int("DJANGO_DATA_UPLOAD_MAX_NUMBER_FIELDS", 10_000)
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "csp",
    "apps.core",
    "apps.accounts",
    "apps.platforms",
    "apps.workloads",
    "apps.scenarios",
    "apps.benchmarks",
    "apps.scoring",
    "apps.profiles",
    "apps.reports",
    "apps.calibration",
    "apps.api",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out login into a 429
]

# Brute force (django-axes): after SKYPLAN_LOGIN_FAILURE_LIMIT wrong passwords for one user name from one address,
# the login page and the token endpoint answer 429 for that pair until SKYPLAN_LOGIN_COOLOFF_MINUTES have passed
# with no new failure (a right password then resets the count).  Failures are kept in the database.
AUTHENTICATION_BACKENDS = ["apps.accounts.backends.LockoutBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("SKYPLAN_LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("SKYPLAN_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_HTTP_RESPONSE_CODE = 429
AXES_VERBOSE = False

ROOT_URLCONF = "apps.urls"
WSGI_APPLICATION = "apps.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "apps.accounts.context_processors.workspace",
                "apps.navigation.navigation",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'skyplan.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
        # A kept-open connection is checked before each request or task reuses it, so the first one after a
        # PostgreSQL restart reconnects instead of failing on the dead connection.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Embedded mode: the web server and the worker's processes write to one file.  IMMEDIATE transactions take
    # the write lock up front (no read-to-write upgrade deadlock), WAL lets readers go on, and writers wait.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
SESSION_ENGINE = "apps.accounts.sessions"  # database sessions that refuse malformed keys
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-au"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"


def _plotly_js_dir() -> str:
    """plotly.js ships inside the plotly Python package; serve that copy (no CDN, works offline)."""
    import importlib.util

    return str(Path(importlib.util.find_spec("plotly").submodule_search_locations[0]) / "package_data")


STATICFILES_DIRS = [BASE_DIR / "static", ("vendor/plotly", _plotly_js_dir())]
STATIC_ROOT = Path(env_str("SKYPLAN_STATIC_ROOT", str(VAR_DIR / "staticfiles")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# By default WhiteNoise serves straight from the finders (static/ and plotly's bundled plotly.js): no collectstatic
# step.  SKYPLAN_STATIC_COLLECTED=1 (production, after `manage.py collectstatic`) serves the collected copies under
# content-hashed names, cached for good by browsers, and gzipped.
SKYPLAN_STATIC_COLLECTED = env_bool("SKYPLAN_STATIC_COLLECTED", False)
WHITENOISE_USE_FINDERS = not SKYPLAN_STATIC_COLLECTED
STORAGES = {
    "default": {"BACKEND": "apps.core.storage.LocalFiles"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage" if SKYPLAN_STATIC_COLLECTED
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


# plotly.js writes <b>, <i>, <sup>, <sub>, <s>, <u>, <a> and <em> in chart text as these SVG style attributes.
PLOTLY_TEXT_STYLES = ["font-weight:bold", "font-style:italic", "font-size:70%", "text-decoration:line-through",
                      "text-decoration:underline", "cursor:pointer", "font-style:italic;font-weight:bold"]
# Content security policy (django-csp 4): everything from this origin, nothing inline.  Pages have no inline scripts
# or handlers (page scripts are static/js/*.js; figures come in json_script data blocks, which are not executed).
# plotly.js needs no eval; its own style sheets are static files (templates/plotly_styles.html), and the only
# inline styles it sets are the text-markup attributes above, allowed by hash.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "style-src-attr": [UNSAFE_HASHES, *map(_csp_hash, PLOTLY_TEXT_STYLES)],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

MEDIA_ROOT = Path(env_str("SKYPLAN_MEDIA_ROOT", str(VAR_DIR / "media")))
# Files (profile uploads, reports, a benchmark's profile files) all go through Django's storage API
# (apps.core.storage).  SKYPLAN_STORAGE=local (the default) keeps them under MEDIA_ROOT: one host, or several sharing
# that directory.  SKYPLAN_STORAGE=s3 keeps them in an S3-compatible bucket (Ceph RGW, MinIO, AWS S3) that every host
# reaches: SKYPLAN_S3_BUCKET, SKYPLAN_S3_ENDPOINT_URL (empty for AWS), SKYPLAN_S3_REGION, and the credentials in
# AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or any other source boto3 reads).  Transfers go in parts of
# SKYPLAN_S3_PART_MB, at most SKYPLAN_S3_CONCURRENCY at once (an upload streamed from its request: one part at a time
# as it arrives), so memory stays flat whatever the file size.
SKYPLAN_STORAGE = env_str("SKYPLAN_STORAGE", "local").strip().lower()
if SKYPLAN_STORAGE == "s3":
    _bucket = env_str("SKYPLAN_S3_BUCKET")
    if not _bucket:
        raise ImproperlyConfigured("SKYPLAN_STORAGE=s3 needs SKYPLAN_S3_BUCKET (the bucket every host reaches)")
    from boto3.s3.transfer import TransferConfig

    STORAGES["default"] = {"BACKEND": "apps.core.storage.ObjectStore", "OPTIONS": {
        "bucket_name": _bucket,
        "endpoint_url": env_str("SKYPLAN_S3_ENDPOINT_URL") or None,
        "region_name": env_str("SKYPLAN_S3_REGION") or None,
        "addressing_style": env_str("SKYPLAN_S3_ADDRESSING_STYLE", "path"),
        "signature_version": "s3v4",
        "verify": env_bool("SKYPLAN_S3_VERIFY_TLS", True),
        "default_acl": None,
        "querystring_auth": True,
        "file_overwrite": False,
        "transfer_config": TransferConfig(
            multipart_threshold=env_int("SKYPLAN_S3_PART_MB", 16) * 1024**2,
            multipart_chunksize=env_int("SKYPLAN_S3_PART_MB", 16) * 1024**2,
            max_concurrency=env_int("SKYPLAN_S3_CONCURRENCY", 4),
        ),
    }}
elif SKYPLAN_STORAGE != "local":
    raise ImproperlyConfigured(f"SKYPLAN_STORAGE={SKYPLAN_STORAGE!r}: use local (MEDIA_ROOT on this host) or s3")
SKYPLAN_PROFILE_MAX_BYTES = env_int("SKYPLAN_PROFILE_MAX_BYTES", 2 * 1024**3)  # profile upload limit per file

# Celery: JSON only, time limits, late acks (see apps/celery.py).
_broker = env_str("CELERY_BROKER_URL", "")
if _broker:
    CELERY_BROKER_URL = _broker
    CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", _broker if _broker.startswith("redis") else "")
    # Redis hands an unacknowledged task to another worker after the visibility timeout: keep it above the longest
    # task time limit (profile imports: 3 h), or a long task could run twice at once.
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {
        "visibility_timeout": max(2 * env_int("CELERY_TASK_TIME_LIMIT", 3600), 4 * 3600)}
else:
    # Embedded broker: kombu's file-system transport, shared by the web process and the worker.
    _queue_dir = VAR_DIR / "broker" / "queue"
    _processed_dir = VAR_DIR / "broker" / "processed"
    _control_dir = VAR_DIR / "broker" / "control"
    for _d in (_queue_dir, _processed_dir, _control_dir, VAR_DIR / "results"):
        _d.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "processed_folder": str(_processed_dir),
        "store_processed": False,
        "control_folder": str(_control_dir),
    }
    CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", f"file://{VAR_DIR / 'results'}")
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 3600)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 3500)
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "celery")
# Broker restarts: a worker reconnects at start-up and after losing the connection (retrying every 2-30 s), and the
# tasks it is running go on and write their results to the database rather than being cancelled.  (On losing the
# connection the worker also tries to put those tasks back in the queue: with Redis down that fails; after a mere
# network blip they run again and find their job finished, or still running — the writes are idempotent.)  Tasks
# that were only queued or reserved are lost with Redis's memory: the lost-task sweep (apps.core.services) sends
# them again.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# Result writes to Redis are retried (with backoff, up to 10 times) rather than failing the task when Redis is
# briefly away; the job's own state lives in PostgreSQL, so a result that is never stored loses nothing.
CELERY_RESULT_BACKEND_ALWAYS_RETRY = True
CELERY_RESULT_BACKEND_MAX_RETRIES = 10
# The sweeps every worker runs (apps.core.signals): how often, and how old a queued job must be before its task
# can be declared lost (seconds); and how often a worker writes its heartbeat (a worker is alive while it beats or
# answers a ping).
# Admission limits: the work one request (a run or a scenario) may queue, estimated from the scenario contract
# before anything is queued (simulator/contract.py: estimate); a request above them is a 400 naming the field and the
# bound.  One replication of the paper's CHILES epoch is about 215 tasks (1,433 on the cloud).
SKYPLAN_MAX_TASKS_PER_REPLICATION = env_int("SKYPLAN_MAX_TASKS_PER_REPLICATION", 500_000)
SKYPLAN_MAX_REPLICATION_MEMORY_MB = env_int("SKYPLAN_MAX_REPLICATION_MEMORY_MB", 1500)
SKYPLAN_MAX_TASKS_PER_REQUEST = env_int("SKYPLAN_MAX_TASKS_PER_REQUEST", 2_000_000)
# Per workspace (by slug), any of the three: "survey-team:tasks_per_replication=1000000,memory_mb=4000;lab:..."
SKYPLAN_ADMISSION_BY_WORKSPACE = env_int_table("SKYPLAN_ADMISSION_BY_WORKSPACE",
                                               ("tasks_per_replication", "memory_mb", "tasks_per_request"))

SKYPLAN_SWEEP_INTERVAL_S = env_int("SKYPLAN_SWEEP_INTERVAL_S", 30)
SKYPLAN_HEARTBEAT_INTERVAL_S = env_int("SKYPLAN_HEARTBEAT_INTERVAL_S", 5)
SKYPLAN_LOST_TASK_AFTER_S = env_int("SKYPLAN_LOST_TASK_AFTER_S", 60)
# A job run in-process (no Celery task: `manage.py simulate`, a benchmark's profile imports) still unfinished this
# long after it was requested (past every task's time limit, 3 h at most) was abandoned by a process that ended.
SKYPLAN_ABANDONED_AFTER_S = env_int("SKYPLAN_ABANDONED_AFTER_S", 6 * 3600)
# Cancel: a running job sees it at its next progress report (every 0.5 s); a task still running this many seconds
# after its job was cancelled is terminated by its worker (SIGTERM, then SIGKILL at twice that), so cancel frees the
# worker within about 5 s (apps.core.jobs.terminate_unanswered, checked every second in each worker's main process).
SKYPLAN_CANCEL_GRACE_S = env_int("SKYPLAN_CANCEL_GRACE_S", 2)
# Memory per worker process: a job may grow its process's address space by SKYPLAN_JOB_MEMORY_MB beyond what the
# process held when it started (a soft RLIMIT_AS set in each pool process: apps.core.signals.limit_job_memory); past
# that its allocation fails and the job ends failed with "ran out of memory", instead of taking the host's memory
# (admission control refuses what its estimate puts above SKYPLAN_MAX_REPLICATION_MEMORY_MB; this catches what the
# estimate misses).  0 switches it off.  A pool process whose resident memory stays above
# SKYPLAN_WORKER_RECYCLE_MB after a task is replaced by a fresh one (Celery's worker_max_memory_per_child).
SKYPLAN_JOB_MEMORY_MB = env_int("SKYPLAN_JOB_MEMORY_MB", 3000)
CELERY_WORKER_MAX_MEMORY_PER_CHILD = env_int("SKYPLAN_WORKER_RECYCLE_MB", 1000) * 1024  # KiB

# --- REST API (apps/api): token or session authentication, the same login requirement as the pages.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.api.authentication.ApiTokenAuthentication",  # DRF's token auth, refusing malformed tokens first
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON nested past a bound is a 400 (a RecursionError was a 500); forms and multipart as DRF's defaults
    "DEFAULT_PARSER_CLASSES": ["apps.api.parsers.BoundedJSONParser", "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "apps.api.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 50,
}
# API tokens: a token older than SKYPLAN_TOKEN_TTL_HOURS is refused (401) and the token endpoint hands out a new
# one (0: tokens never expire); with SKYPLAN_TOKEN_REVOKE_ON_LOGOUT (on by default) logging out of the site deletes
# the user's token.
SKYPLAN_TOKEN_TTL_HOURS = env_int("SKYPLAN_TOKEN_TTL_HOURS", 24 * 30)
SKYPLAN_TOKEN_REVOKE_ON_LOGOUT = env_bool("SKYPLAN_TOKEN_REVOKE_ON_LOGOUT", True)
SPECTACULAR_SETTINGS = {
    "TITLE": "Skyplan API",
    "DESCRIPTION": "Where to run a data-intensive pipeline, and what it will cost.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

SKYPLAN_CATALOGUE_DIR = BASE_DIR / "fixtures" / "catalogue"
SKYPLAN_SEEDS_DIR = Path(env_str("SKYPLAN_SEEDS_DIR", str(BASE_DIR.parent / "shared" / "seeds")))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}
