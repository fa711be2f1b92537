"""The scoring fixtures, shared."""

from tests.scoring.conftest import scorable_question  # noqa: F401
