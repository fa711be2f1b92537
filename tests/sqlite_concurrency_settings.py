"""The embedded default (SQLite, no services) as `./scripts/run` serves it, for the autosave
versus submit race test. Until config.settings sets them itself (issue 10), the SQLite options
that make concurrent writers wait instead of failing are filled in here; once it does, its own
values win (setdefault)."""

from __future__ import annotations

from config.settings.dev import *  # noqa: F403
from config.settings.dev import DATABASES

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    options = DATABASES["default"].setdefault("OPTIONS", {})
    options.setdefault("transaction_mode", "IMMEDIATE")
    options.setdefault("timeout", 20)
    options.setdefault("init_command", "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
