"""Tests run on the real services: PostgreSQL and Redis, local defaults unless set."""

from __future__ import annotations

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mockloop")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")

from .base import *  # noqa: E402, F403

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tests talk to a real broker; none of them relies on eager mode.
CELERY_TASK_ALWAYS_EAGER = False
