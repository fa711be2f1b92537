"""Local development: DEBUG on, embedded defaults unless DATABASE_URL / REDIS_URL are set."""

from __future__ import annotations

import os

os.environ.setdefault("DEBUG", "true")

from .base import *  # noqa: E402, F403
