"""Benchmark: writing the debrief for a five-question loop, against scoring one answer.

Run: .venv/bin/python bench/bench_debrief.py [--repeat 200] [--with-database]
(--with-database also times the whole debrief_build and answer_score services, queries included,
on a test_ copy of DATABASE_URL's PostgreSQL database.)
Times the pure panel (scoring.panel.run_panel) plus the Markdown rendering, i.e. everything
debrief_build does besides its handful of queries, and reports the median and its ratio to the
median time the rubric engine takes to score one answer (when that engine is installed).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

from scoring import panel, reports  # noqa: E402
from scoring.engines.base import CriterionSpec, QuestionSpec, get_engine  # noqa: E402

ANSWER = (
    "We have a 20ms contract, so I target 15ms p99 internally and keep headroom for network "
    "jitter. Kernel launch overhead is about 2ms, so batching to 64 is a trap; I would measure "
    "and pick batch 32, trading batch size against queueing delay. I size the fleet from a "
    "measured rate of 40 requests per second per GPU and add 20% headroom. Rollouts go through "
    "a canary with a 30 minute stabilization window and automatic rollback on p99 and errors. "
    "We load test with per-stage tracing before launch."
)
CRITERIA = (
    CriterionSpec("headroom", "Leaves headroom under the contract", weight=2,
                  phrases=("headroom", "buffer", "network jitter")),
    CriterionSpec("launch", "Budgets kernel launch overhead", weight=2,
                  phrases=("launch overhead", "kernel launch")),
    CriterionSpec("tradeoff", "Trades batch size against queueing delay", weight=2,
                  phrases=("batch size against queueing", "queueing delay")),
    CriterionSpec("canary", "Waits for a stabilization window before judging the canary",
                  weight=2, phrases=("stabilization window", "bake time")),
    CriterionSpec("measure", "Plans a load test with per-stage tracing", weight=1,
                  phrases=("load test", "per-stage tracing")),
)


def five_question_input(seed: int) -> panel.PanelInput:
    rng = random.Random(seed)
    questions = []
    for position in range(1, 6):
        criteria = tuple(
            panel.CriterionResult(
                key=f"{c.key}-{position}", label=c.label, weight=c.weight,
                verdict=rng.choice(["made", "partly", "missed"]),
                quotes=("I target 15ms p99 internally and keep headroom for network jitter.",))
            for c in CRITERIA)
        questions.append(panel.QuestionResult(
            position=position, question_slug=f"q{position}", prompt=f"Question {position}?",
            topic_slug=f"topic-{position}", topic_title=f"Topic {position}",
            total=rng.uniform(30, 95), rating=3, criteria=criteria))
    band = panel.Band("USD", 185_000, 210_000, 0.02, 0.04, 30_000, 50_000)
    return panel.PanelInput(tuple(questions), decision_rule="bar_raiser_veto", band=band,
                            seed=f"loop-{seed}")


def timed(fn, repeat: int) -> list[float]:
    samples = []
    for i in range(repeat):
        start = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def with_database(repeat: int) -> dict[str, object]:
    """The whole debrief_build (queries included) for a real five-question loop of the bundled
    bank, against the whole answer_score service (load, score, store) for one answer."""
    from django.core.management import call_command
    from django.db import connection

    from interviews import services as loop_services
    from interviews.models import Bank, Loop
    from scoring import services as scoring_services
    from scoring.models import Debrief, ScoreResult
    from tests.factories import UserFactory

    connection.creation.create_test_db(verbosity=0, keepdb=True, serialize=False)
    call_command("flush", interactive=False, verbosity=0)
    call_command("import_bank", str(ROOT / "interviews/banks/inference-serving-ai-engineers.yaml"),
                 verbosity=0)
    from scoring import enqueue as scoring_enqueue

    scoring_enqueue.enqueue = lambda name, object_id: True  # no broker traffic
    reports_on_commit = reports.transaction.on_commit
    reports.transaction.on_commit = lambda fn, *a, **k: None  # build synchronously below
    bank = Bank.objects.get(slug="inference-serving-ai-engineers")
    loop = loop_services.loop_start(candidate=UserFactory(username=f"bench_{time.time_ns()}"),
                                    bank=bank, format=Loop.Format.FULL,
                                    rng=random.Random(7))  # noqa: S311
    answers = []
    for loop_question in loop.loop_questions.all():
        loop_services.loop_question_show(loop_question=loop_question)
        answers.append(loop_services.answer_submit(loop_question=loop_question,
                                                   text=ANSWER).answer)

    def score_again(i: int) -> None:
        answer = answers[i % len(answers)]
        ScoreResult.objects.filter(answer=answer).delete()
        type(answer).objects.filter(pk=answer.pk).update(scoring_status="queued")
        scoring_services.answer_score(answer_id=answer.pk)

    score_samples = timed(score_again, max(repeat // 4, 25))
    debrief = reports.debrief_request(loop=loop, reason="bench")

    def build(i: int) -> None:
        Debrief.objects.filter(pk=debrief.pk).update(status=Debrief.Status.PENDING)
        reports.debrief_build(debrief_id=debrief.pk)

    build(0)
    build_samples = timed(build, max(repeat // 4, 25))
    reports.transaction.on_commit = reports_on_commit
    build_ms, score_ms = statistics.median(build_samples), statistics.median(score_samples)
    return {"db_debrief_build_median_ms": round(build_ms, 2),
            "db_answer_score_median_ms": round(score_ms, 2),
            "db_ratio_debrief_to_one_answer": round(build_ms / score_ms, 2)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--with-database", action="store_true",
                        help="also time the whole debrief_build on PostgreSQL (DATABASE_URL)")
    args = parser.parse_args()

    def debrief(i: int) -> None:
        report = panel.run_panel(five_question_input(i))
        report.update(loop={"bank_title": "Bench"}, version=1, reason="bench", notes=[])
        reports.report_markdown(report)

    timed(debrief, 20)  # warm-up
    debrief_ms = statistics.median(timed(debrief, args.repeat))
    result: dict[str, object] = {"debrief_median_ms": round(debrief_ms, 3),
                                 "repeat": args.repeat}
    try:
        engine = get_engine("rubric")
    except LookupError:
        result["score_one_answer_median_ms"] = None
        result["ratio_debrief_to_one_answer"] = None
    else:
        spec = QuestionSpec(prompt="What latency budget?", criteria=CRITERIA)
        timed(lambda _i: engine.score(spec, ANSWER), 5)
        score_ms = statistics.median(timed(lambda _i: engine.score(spec, ANSWER), args.repeat))
        result["score_one_answer_median_ms"] = round(score_ms, 3)
        result["ratio_debrief_to_one_answer"] = round(debrief_ms / score_ms, 2)
    if args.with_database:
        result.update(with_database(args.repeat))
    print(json.dumps(result, indent=2))
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "debrief.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
