"""Benchmark: writing the debrief for a five-question loop, against scoring one answer.

Run: .venv/bin/python bench/bench_debrief.py [--repeat 200]
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
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
    print(json.dumps(result, indent=2))
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "debrief.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
