"""Every writer locks the loop row before the question row, so an autosave racing a submit
waits instead of deadlocking (PostgreSQL aborted one of them with a 500 before)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from interviews import services
from interviews.models import Loop
from tests.interviews.data import make_bank

pytestmark = pytest.mark.django_db


def _tables_written(queries: list[dict]) -> list[str]:
    """The tables each statement locks rows of, in order (UPDATE and SELECT ... FOR UPDATE)."""
    written = []
    for query in queries:
        sql = query["sql"]
        if sql.startswith("UPDATE "):
            written.append(sql.split()[1].strip('"'))
        elif sql.endswith("FOR UPDATE"):
            written.append(sql.split(" FROM ")[1].split()[0].strip('"'))
    return written


@pytest.fixture
def loop_question(candidate):
    loop = services.loop_start(candidate=candidate, bank=make_bank(), format=Loop.Format.SINGLE)
    return loop.loop_questions.get()


def test_autosave_locks_the_loop_before_the_question(loop_question):
    with CaptureQueriesContext(connection) as ctx:
        services.draft_save(loop_question=loop_question, text="draft")
    written = _tables_written(ctx.captured_queries)
    assert written[0] == "interviews_loop"
    assert "interviews_loopquestion" in written


def test_first_view_locks_the_loop_before_the_question(loop_question):
    with CaptureQueriesContext(connection) as ctx:
        services.loop_question_show(loop_question=loop_question)
    written = _tables_written(ctx.captured_queries)
    assert written[0] == "interviews_loop"
    assert "interviews_loopquestion" in written


def test_submit_locks_the_loop_before_the_question(loop_question):
    with CaptureQueriesContext(connection) as ctx:
        services.answer_submit(loop_question=loop_question, text="An answer with substance.")
    written = _tables_written(ctx.captured_queries)
    assert written[0] == "interviews_loop"
    assert "interviews_loopquestion" in written
