"""Pages constant in data: each page's median at 10 / 1,000 / 10,000 finished loops.

Seeds finished 5-question loops in bulk (answers with full text, snapshots, scores with
evidence, a scorecard on every other loop with its calibration point), then times each page
in-process (Django test client: every middleware, the session and user look-ups) beside a
trivial logged-in view timed the same way, at each size. A page passes when its median at the
largest size is within 2x of its own median at the smallest.

Run: DATABASE_URL=postgres://... python bench/bench_pages.py [--sizes 10,1000,10000]
     [--requests 30]
It uses (keeps, and empties first) a test_* database next to DATABASE_URL's. Prints a table and
one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mockloop_bench")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.decorators import login_required  # noqa: E402
from django.db import connection  # noqa: E402
from django.http import HttpRequest, HttpResponse  # noqa: E402
from django.urls import include, path  # noqa: E402
from django.utils import timezone  # noqa: E402


@login_required
def trivial(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [path("bench/trivial/", trivial), path("", include("config.urls"))]

ANSWER = ("I would set a 15ms p99 internal budget, leaving headroom under the 20ms contract "
          "for network jitter, batch to amortise the kernel launch overhead, and prove it with "
          "a load test and per-stage tracing. ") * 8


def setup_world():  # type: ignore[no-untyped-def]
    from tests.factories import UserFactory
    from tests.interviews.data import make_bank

    bank = make_bank(topics=5, per_topic=2)
    bank.reviewers_see_all_loops = True
    bank.save(update_fields=["reviewers_see_all_loops"])
    interviewers = [UserFactory(username=f"bench_iv_{i}", interviewer=True) for i in range(5)]
    bank.reviewers.add(*interviewers)
    admin = UserFactory(username="bench_admin", is_staff=True, is_superuser=True)
    candidates = [UserFactory(username=f"bench_cand_{i}") for i in range(20)]
    return bank, interviewers, admin, candidates


def seed_loops(bank, interviewers, candidates, count: int, offset: int) -> None:  # type: ignore[no-untyped-def]
    """`count` finished loops in bulk, as the app would have stored them."""
    from interviews.models import Answer, Loop, LoopQuestion, Scorecard
    from interviews.services import snapshot_for
    from scoring.models import CalibrationPoint, CriterionJudgement, Debrief, ScoreResult
    from tests.interviews.data import fake_score  # noqa: F401 - the shape copied below

    questions = [t.questions.order_by("order").first() for t in bank.topics.order_by("order")]
    snapshots = [snapshot_for(q) for q in questions]
    now = timezone.now()
    verdicts = ["made", "missed", "partly"]
    for start in range(0, count, 500):
        batch = range(start, min(count, start + 500))
        loops = Loop.objects.bulk_create(
            Loop(candidate=candidates[(offset + i) % len(candidates)], bank=bank,
                 format=Loop.Format.FULL, status=Loop.Status.FINISHED, started_at=now,
                 last_activity_at=now, finished_at=now, public_id=uuid.uuid4())
            for i in batch)
        lqs = LoopQuestion.objects.bulk_create(
            LoopQuestion(loop=loop, question=q, position=p, rubric_version=1,
                         snapshot=snapshots[p - 1], started_at=now)
            for loop in loops for p, q in enumerate(questions, 1))
        answers = Answer.objects.bulk_create(
            Answer(loop_question=lq, text=ANSWER, submitted_at=now, status_changed_at=now,
                   scoring_status=Answer.ScoringStatus.SCORED, scoring_attempts=1)
            for lq in lqs)
        scores = ScoreResult.objects.bulk_create(
            ScoreResult(answer=a, engine="rubric", engine_version="1", rubric_version=1,
                        total=float((a.pk * 37) % 100), rating=1 + (a.pk % 4),
                        criteria=[{"key": k, "label": k.title(), "kind": "concept",
                                   "verdict": verdicts[(a.pk + j) % 3], "weight": 1.0,
                                   "credit": 0.5, "evidence": [{"start": 10, "end": 60}],
                                   "feedback": "Feedback " * 20}
                                  for j, k in enumerate(("headroom", "measure", "budget"))],
                        numbers=[], feedback={"summary": "A solid start. " * 10})
            for a in answers)
        Debrief.objects.bulk_create(
            Debrief(loop=loop, version=1, status=Debrief.Status.READY, reason="Loop finished",
                    report={"questions": [], "tally": {"text": "3 of 5"}}, ready_at=now)
            for loop in loops)
        # A scorecard on the first answer of every other loop, and its calibration point.
        reviewed = [(i, s) for i, s in zip(batch, scores[::5], strict=True) if i % 2 == 0]
        cards = Scorecard.objects.bulk_create(
            Scorecard(answer_id=s.answer_id, loop_id=loops[i - start].pk,
                      interviewer=interviewers[i % len(interviewers)],
                      verdicts={"headroom": verdicts[i % 3]}, rating=1 + (i % 4),
                      recommendation="hire")
            for i, s in reviewed)
        points = CalibrationPoint.objects.bulk_create(
            CalibrationPoint(scorecard=c, loop_id=loops[i - start].pk, bank=bank,
                             question=snapshots[0]["question_slug"],
                             interviewer_id=c.interviewer_id, auto_total=s.total,
                             auto_rating=s.rating, human_rating=c.rating)
            for c, (i, s) in zip(cards, reviewed, strict=True))
        CriterionJudgement.objects.bulk_create(
            CriterionJudgement(point=p, key=cr["key"], label=cr["label"],
                               auto_verdict=cr["verdict"],
                               human_verdict=c.verdicts.get(cr["key"], cr["verdict"]),
                               flipped=c.verdicts.get(cr["key"], cr["verdict"]) != cr["verdict"])
            for p, c, (_, s) in zip(points, cards, reviewed, strict=True) for cr in s.criteria)
    with connection.cursor() as cursor:
        # The running cells, as calibration_record keeps them, rebuilt from the points.
        cursor.execute("DELETE FROM scoring_calibrationcell")
        cursor.execute("DELETE FROM scoring_flipcell")
        cursor.execute("""
            INSERT INTO scoring_calibrationcell
              (bank_id, question, bucket, auto_rating, human_rating, n, sx, sxx, sxy)
            SELECT bank_id, question, floor(auto_total + 0.5), auto_rating,
              human_rating, count(*), sum(auto_total), sum(auto_total * auto_total),
              sum(auto_total * human_rating)
            FROM scoring_calibrationpoint GROUP BY 1, 2, 3, 4, 5""")
        cursor.execute("""
            INSERT INTO scoring_flipcell
              (bank_id, question, key, label, auto_verdict, human_verdict, n)
            SELECT p.bank_id, p.question, j.key, max(j.label), j.auto_verdict,
              j.human_verdict, count(*)
            FROM scoring_calibrationpoint p JOIN scoring_criterionjudgement j
              ON j.point_id = p.id GROUP BY 1, 2, 3, 5, 6""")
        cursor.execute("ANALYZE")


def median_ms(client, url: str, requests: int) -> float:  # type: ignore[no-untyped-def]
    for _ in range(3):  # warm caches and connections
        assert client.get(url).status_code == 200, url
    samples = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url)
        samples.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,1000,10000")
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    settings.ROOT_URLCONF = __name__
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["*"]
    connection.creation.create_test_db(verbosity=0, keepdb=True, serialize=False)
    from django.core.management import call_command

    call_command("flush", interactive=False, verbosity=0)
    from django.test import Client

    from scoring import enqueue as scoring_enqueue

    scoring_enqueue.enqueue = lambda name, object_id: True  # no broker traffic

    bank, interviewers, admin, candidates = setup_world()
    # The measured candidate has five loops of their own whatever the size; the seeded loops
    # belong to the others (candidate pages grow with the candidate's own loops, by design).
    measured, candidates = candidates[0], candidates[1:]
    seed_loops(bank, interviewers, [measured], 5, 0)
    pages = {
        "calibration (admin)": (admin, "/review/calibration/"),
        "calibration (interviewer)": (interviewers[0], "/review/calibration/"),
        "review queue (interviewer)": (interviewers[0], "/review/"),
        "review queue, reviewed (interviewer)": (interviewers[0], "/review/?status=reviewed"),
        "review queue (admin)": (admin, "/review/?status=all"),
        "progress (candidate)": (measured, "/reports/progress/"),
        "home (candidate)": (measured, "/"),
        "trivial view": (measured, "/bench/trivial/"),
    }
    clients = {}
    for name, (user, _) in pages.items():
        clients[name] = Client()
        clients[name].force_login(user)

    results: dict[str, dict[int, float]] = {name: {} for name in pages}
    seeded = 0
    for size in sizes:
        started = time.perf_counter()
        seed_loops(bank, interviewers, candidates, size - seeded, seeded)
        seed_seconds = time.perf_counter() - started
        seeded = size
        for name, (_, url) in pages.items():
            results[name][size] = round(median_ms(clients[name], url, args.requests), 2)
        print(f"seeded {size} loops in {seed_seconds:.1f} s", file=sys.stderr)

    first, last = sizes[0], sizes[-1]
    print(f"{'page':40s}" + "".join(f"{s:>10,d}" for s in sizes) + "   ratio   vs trivial")
    for name in pages:
        row = results[name]
        ratio = row[last] / row[first]
        print(f"{name:40s}" + "".join(f"{row[s]:>10.2f}" for s in sizes)
              + f"   {ratio:5.2f}x  {row[last] / results['trivial view'][last]:5.1f}x"
              + ("" if ratio <= 2 else "   OVER 2x"))
    print(json.dumps({"sizes": sizes, "median_ms": results,
                      "ratio_last_to_first": {n: round(r[last] / r[first], 2)
                                              for n, r in results.items()}}))


if __name__ == "__main__":
    main()
