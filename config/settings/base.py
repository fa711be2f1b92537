"""Settings shared by every environment, read from the environment (12-factor).

With no DATABASE_URL the app runs on an embedded SQLite file; with no REDIS_URL (or
CELERY_BROKER_URL) Celery tasks run in-process, so a fresh clone works with no services.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("Set SECRET_KEY (or DEBUG=true for local development).")
    SECRET_KEY = "insecure-development-key-only-for-debug-mode"  # noqa: S105

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "config.apps.MockloopAdminConfig",  # django.contrib.admin, login throttled
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "csp",
    "template_partials.apps.SimpleAppConfig",
    "interviews",
    "scoring",
    "ops",
]

MIDDLEWARE = [
    "ops.middleware.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    # Innermost, so a view's database error becomes the 503 page before anything else runs.
    "ops.outage.DatabaseOutageMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "interviews.context_processors.roles",
            ],
            "builtins": ["template_partials.templatetags.partials"],
            "loaders": [
                (
                    "template_partials.loader.Loader",
                    [
                        (
                            "django.template.loaders.cached.Loader",
                            [
                                "django.template.loaders.filesystem.Loader",
                                "django.template.loaders.app_directories.Loader",
                            ],
                        )
                    ],
                )
            ],
        },
    },
]

# Local state of the embedded default (SQLite file, demo credentials); not in version control.
DATA_DIR = Path(os.environ.get("MOCKLOOP_DATA_DIR", BASE_DIR / "var"))
EMBEDDED_DATABASE = not os.environ.get("DATABASE_URL")
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{DATA_DIR / 'mockloop.sqlite3'}",
        conn_max_age=600,
        # Off by default: the check is a query on every request. A connection broken by a
        # database restart fails one request (the 503 page, safe to retry) and is replaced.
        conn_health_checks=env_bool("DATABASE_CONN_HEALTH_CHECKS", False),
    )
}
if EMBEDDED_DATABASE:
    # A browser fires autosave and submit together: WAL lets reads run beside a write, the
    # busy timeout waits for the lock instead of failing, and IMMEDIATE takes the write lock
    # when the transaction starts, so two writers queue instead of deadlocking on upgrade.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "interviews:home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Production swaps in whitenoise's compressed manifest storage (needs collectstatic).
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Content-Security-Policy (django-csp 4): our own scripts, styles and images only; no inline
# script, style or handler, no eval (htmx is configured not to use it), no framing.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# Cache: Redis when configured (shared login throttling across processes), else local memory.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Celery: a real broker when configured, otherwise tasks run in-process (embedded default).
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = 120
CELERY_TASK_SOFT_TIME_LIMIT = 90
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ACKS_ON_FAILURE_OR_TIMEOUT = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Fail fast on the request path: no blocking publish retries (the sweep re-sends whatever
# did not get through) and a short connect timeout, so Submit does not hang on a dead broker.
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BROKER_CONNECTION_TIMEOUT = 1.0
# Workers: keep reconnecting after a broker restart, forever, at startup and later.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # A task not acknowledged within this time is redelivered (Redis visibility timeout).
    "visibility_timeout": int(os.environ.get("MOCKLOOP_BROKER_VISIBILITY_TIMEOUT", "600")),
    "socket_connect_timeout": 1.0,
    # Connecting to send (the request path): one quick retry, not kombu's 2 s back-off. The
    # worker's consumer reconnects with its own loop (BROKER_CONNECTION_MAX_RETRIES above).
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
    # Bounds a publish on a half-open connection; kombu's BRPOP has its own timeout.
    "socket_timeout": 5.0,
    "socket_keepalive": True,
    "health_check_interval": 10,
}
CELERY_BEAT_SCHEDULE = {
    "sweep-stuck-scoring": {
        "task": "scoring.tasks.sweep_stuck",
        # Every minute: with answers stuck after MOCKLOOP_STUCK_SECONDS, a lost message is
        # re-sent within STUCK + 60 s, and a provisional debrief converges as quickly.
        "schedule": timedelta(seconds=60),
    },
    "expire-idle-loops": {
        "task": "interviews.tasks.expire_idle_loops",
        "schedule": crontab(minute="*/15"),
    },
    "worker-heartbeat": {
        "task": "ops.tasks.heartbeat",
        "schedule": timedelta(seconds=15),  # ops.health.HEARTBEAT_EVERY
    },
}

# Product settings.
MOCKLOOP_SCORING_ENGINE = os.environ.get("MOCKLOOP_SCORING_ENGINE", "rubric")
# Extra engine modules to load (each registers itself), e.g. an LLM-backed engine.
MOCKLOOP_SCORING_ENGINE_MODULES = env_list("MOCKLOOP_SCORING_ENGINE_MODULES")
MOCKLOOP_LOOP_IDLE_EXPIRY = timedelta(hours=int(os.environ.get("MOCKLOOP_LOOP_IDLE_HOURS", "24")))
MOCKLOOP_ANSWER_MAX_CHARS = 20_000
# An answer queued or scoring for longer than this is re-enqueued by the sweep.
MOCKLOOP_SCORING_STUCK_AFTER = timedelta(
    seconds=int(os.environ.get("MOCKLOOP_STUCK_SECONDS", "120")))
# Scoring attempts per answer, automatic and manual together; then it stays failed.
MOCKLOOP_SCORING_MAX_ATTEMPTS = int(os.environ.get("MOCKLOOP_SCORING_MAX_ATTEMPTS", "5"))
# /metrics: with a token, callers send it as a bearer token; without, only local callers.
MOCKLOOP_METRICS_TOKEN = os.environ.get("MOCKLOOP_METRICS_TOKEN", "")
# Probes and the scraper talk plain HTTP to the app server, behind the TLS proxy.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
MOCKLOOP_BUNDLED_BANKS_DIR = BASE_DIR / "interviews" / "banks"

# Throttle (interviews/throttle.py): failures per window lock an account; failures from one
# address only slow that address down. Sign-ups and reset requests are rate-limited.
MOCKLOOP_LOGIN_MAX_ATTEMPTS = 5
MOCKLOOP_LOGIN_WINDOW_SECONDS = 300
MOCKLOOP_LOGIN_ADDRESS_SLOWDOWN_AFTER = 10
MOCKLOOP_SIGNUP_MAX_PER_ADDRESS = int(os.environ.get("MOCKLOOP_SIGNUP_MAX_PER_ADDRESS", "10"))
MOCKLOOP_SIGNUP_WINDOW_SECONDS = 3600
MOCKLOOP_PASSWORD_RESET_MAX_REQUESTS = 5
MOCKLOOP_PASSWORD_RESET_WINDOW_SECONDS = 3600
# Client address: REMOTE_ADDR, or with N trusted reverse proxies in front (each appending to
# X-Forwarded-For) the N-th entry from the right. 0 = no proxy, the header is ignored.
MOCKLOOP_TRUSTED_PROXY_COUNT = int(os.environ.get("MOCKLOOP_TRUSTED_PROXY_COUNT", "0"))

# E-mail (password reset): EMAIL_URL (smtp://user:pass@host:587, smtp+tls://..., smtps://...,
# console://) or the usual EMAIL_* variables. With neither, mail goes to the console when DEBUG
# is on (./scripts/run) and to an SMTP server on localhost otherwise.
EMAIL_URL = os.environ.get("EMAIL_URL", "")
if EMAIL_URL:
    from urllib.parse import unquote, urlsplit

    _email = urlsplit(EMAIL_URL)
    if _email.scheme in {"console", "locmem", "dummy"}:
        EMAIL_BACKEND = f"django.core.mail.backends.{_email.scheme}.EmailBackend"
    elif _email.scheme in {"smtp", "smtp+tls", "smtps"}:
        EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        EMAIL_HOST = _email.hostname or "localhost"
        EMAIL_PORT = _email.port or {"smtps": 465, "smtp+tls": 587}.get(_email.scheme, 25)
        EMAIL_HOST_USER = unquote(_email.username or "")
        EMAIL_HOST_PASSWORD = unquote(_email.password or "")
        EMAIL_USE_TLS = _email.scheme == "smtp+tls"
        EMAIL_USE_SSL = _email.scheme == "smtps"
    else:
        raise ImproperlyConfigured(f"EMAIL_URL: unknown scheme {_email.scheme!r}")
else:
    EMAIL_BACKEND = os.environ.get(
        "EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend" if DEBUG
        else "django.core.mail.backends.smtp.EmailBackend")
    EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
    EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
    EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "mockloop <noreply@localhost>")
PASSWORD_RESET_TIMEOUT = 3600  # a reset link works for an hour

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
