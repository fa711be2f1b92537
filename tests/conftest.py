"""Shared fixtures: one per role, and the bundled bank."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.core.management import call_command

from tests.factories import UserFactory

# Playwright's sync API runs an event loop; the ORM refuses to run inside one otherwise.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

BUNDLED_BANK = settings.MOCKLOOP_BUNDLED_BANKS_DIR / "inference-serving-ai-engineers.yaml"


@pytest.fixture
def candidate(db):
    return UserFactory(username="candidate_a")


@pytest.fixture
def other_candidate(db):
    return UserFactory(username="candidate_b")


@pytest.fixture
def interviewer(db):
    return UserFactory(username="interviewer_1", interviewer=True)


@pytest.fixture
def admin_user(db):
    return UserFactory(username="admin_1", is_staff=True, is_superuser=True)


@pytest.fixture
def bundled_bank(db):
    """The real first bank, imported from its bank file."""
    from interviews.models import Bank

    call_command("import_bank", str(BUNDLED_BANK), verbosity=0)
    return Bank.objects.get(slug="inference-serving-ai-engineers")


@pytest.fixture(autouse=True)
def _isolated_cache():
    """Login throttling and other counters live in the cache; start each test clean."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
