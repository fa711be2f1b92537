"""The calibration queries run on both databases: PostgreSQL (the suite) and the embedded SQLite
default (a subprocess with DATABASE_URL unset), where a PostgreSQL-only cast once turned the
page into a false "database did not answer" 503."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.test_embedded_default import ROOT, embedded_env, manage  # noqa: F401 - fixture

CALIBRATION_ON_SQLITE = """
import json
import django
django.setup()
from django.db import connection
from django.test import Client
from django.urls import reverse
from interviews.models import Answer
from interviews.reviews.services import scorecard_rows_for_calibration, scorecard_submit
from scoring.calibration import calibration_report
from scoring.calibration_store import calibration_report_for
from tests.factories import UserFactory
from tests.scoring.test_reports import build_bank, build_finished_loop

assert connection.vendor == "sqlite", connection.vendor
bank = build_bank()
alice = UserFactory(username="alice", interviewer=True)
bob = UserFactory(username="bob", interviewer=True)
for i, quality in enumerate(["strong", "mixed", "weak", "strong", "mixed", "weak"]):
    loop = build_finished_loop(UserFactory(), bank=bank, quality=quality, questions=2)
    loop.reviewers.add(alice)
    for j, answer in enumerate(Answer.objects.filter(loop_question__loop=loop)):
        scorecard_submit(answer=answer, interviewer=alice, verdicts={"headroom": "missed"},
                         rating=1 + (i + j) % 4, recommendation="hire")
# bob reviews the whole bank, and has a loop of his own in it that alice scored: his figures
# are the running cells minus his own loop's points.
bank.reviewers_see_all_loops = True
bank.save(update_fields=["reviewers_see_all_loops"])
bank.reviewers.add(bob)
own = build_finished_loop(bob, bank=bank, quality="strong", questions=2)
for answer in Answer.objects.filter(loop_question__loop=own):
    scorecard_submit(answer=answer, interviewer=alice, verdicts={}, rating=1,
                     recommendation="no_hire")

result = {}
for user in (alice, bob):
    client = Client(SERVER_NAME="localhost")
    client.force_login(user)
    response = client.get(reverse("reviews:calibration"))
    stored = calibration_report_for(viewer=user)
    computed = calibration_report(scorecard_rows_for_calibration(user=user))
    result[user.username] = {"status": response.status_code, "stored": stored["overall"],
                             "computed": computed["overall"]}
print(json.dumps(result))
"""


def test_calibration_page_and_queries_work_on_the_embedded_sqlite(embedded_env):  # noqa: F811
    assert manage(embedded_env, "migrate", "--noinput", "-v0").returncode == 0
    run = subprocess.run(  # noqa: S603
        [sys.executable, "-c", CALIBRATION_ON_SQLITE], cwd=ROOT, env=embedded_env,
        capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    for who, n in (("alice", 12), ("bob", 12)):
        assert result[who]["status"] == 200, result
        assert result[who]["stored"]["n"] == n, result
        assert result[who]["stored"] == result[who]["computed"], result


@pytest.mark.django_db
def test_a_half_point_total_is_bucketed_alike_when_stored_and_when_taken_out(monkeypatch):
    """The running cells and the on-the-fly query put 72.5 in the same whole point, so taking
    the viewer's own loop out of a see-all bank leaves no cell behind (Python's round() is
    half-to-even, SQL rounds half up)."""
    from interviews.models import Answer
    from interviews.reviews.services import scorecard_submit
    from scoring.calibration_store import calibration_report_for
    from scoring.models import ScoreResult
    from tests.factories import UserFactory
    from tests.scoring.test_reports import build_bank, build_finished_loop

    monkeypatch.setattr("scoring.enqueue.enqueue", lambda name, object_id: True)
    bank = build_bank()
    bank.reviewers_see_all_loops = True
    bank.save(update_fields=["reviewers_see_all_loops"])
    bob, alice = UserFactory(interviewer=True), UserFactory(interviewer=True)
    bank.reviewers.add(bob)
    own = build_finished_loop(bob, bank=bank, quality="strong", questions=1)
    answer = Answer.objects.get(loop_question__loop=own)
    ScoreResult.objects.filter(answer=answer).update(total=72.5)
    scorecard_submit(answer=Answer.objects.get(pk=answer.pk), interviewer=alice, verdicts={},
                     rating=3, recommendation="hire")
    report = calibration_report_for(viewer=bob)
    assert report["overall"]["n"] == 0
    assert report["pairs"] == []
