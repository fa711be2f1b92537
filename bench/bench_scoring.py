"""Benchmark the default scoring engine: answers per second per core, median and p95 time per
answer for a typical (~150-word) and a long (20,000-character) answer, and peak RSS; beside
them, adversarial answers up to the 20,000-character limit (thousands of numbers, one
20,000-digit number, long arithmetic chains, one 20,000-character word), each as a median and
as a multiple of the typical answer's median (the aim: at most 10x).

Also reference-only mode against a one-sentence reference (short-answer grading), where the
engine adds the embedding model when it is installed: the model's one-off load time, a short
answer, and a 20,000-character answer (of which the model reads the first 1,024 word pieces).

Run: python bench/bench_scoring.py [BANK.yaml]. Needs no database: the bank's YAML is read
directly into QuestionSpecs. Prints one JSON object.
"""

from __future__ import annotations

import json
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring.engines import embeddings  # noqa: E402
from scoring.engines.base import CriterionSpec, QuestionSpec, get_engine  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BANK = ROOT / "interviews/banks/inference-serving-ai-engineers.yaml"

TYPICAL = (
    "The 20ms is the caller's contract, so I'd target about 15ms p99 internally and keep ~5ms "
    "of headroom for network jitter we don't control. I'd state it as a percentile because "
    "averages hide the tail. Breakdown: 2ms network and serialization, 3ms feature fetch with "
    "hot features cached in-process, 1ms preprocessing, 2ms max batch wait, 5ms model compute "
    "and 1ms postprocessing, leaving 1ms slack. About 2ms of compute is fixed GPU kernel launch "
    "overhead, which is why CUDA graphs pay off. Bigger batches raise GPU utilization but add "
    "queueing delay, so I'd cap the batch wait at 2ms and pick the batch size from a measured "
    "latency-throughput curve. I'd load test at 2x peak, trace each stage and alert when p99 "
    "exceeds 15ms; on a breach we time out at 18ms and return a cached fallback score."
)

SHORT_SPEC = QuestionSpec(
    prompt="What is the purpose of a constructor in object-oriented programming?",
    model_answer="A constructor is a special method that is called automatically when an object "
                 "is created; it initialises the object's data members and sets up its initial "
                 "state.",
)
SHORT_ANSWER = ("It runs when a new instance is made and gives the object's fields their "
                "starting values.")


def load_bank(path: Path) -> list[QuestionSpec]:
    """QuestionSpecs straight from a bank YAML file (see interviews/banks/FORMAT.md)."""
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    specs: list[QuestionSpec] = []
    for topic in data.get("topics", ()):
        for question in topic.get("questions", ()):
            criteria = []
            for item in question.get("rubric", ()) or ():
                item = dict(item)
                item["expected_value"] = item.pop("expected", None)
                criteria.append(CriterionSpec.from_dict(item))
            specs.append(QuestionSpec(
                prompt=question["prompt"], model_answer=question.get("model_answer", ""),
                criteria=tuple(criteria), pushback=tuple(question.get("pushback", ())),
                facts=tuple(question.get("facts", ())), scenario=question.get("scenario", ""),
            ))
    return specs


def fallback_spec() -> QuestionSpec:
    return QuestionSpec(
        prompt="What latency budget would you set for a model that must return scores within 20ms?",
        model_answer=TYPICAL,
        criteria=(
            CriterionSpec("headroom", "Leaves headroom under the 20ms contract", weight=2,
                          phrases=("headroom", "buffer for network jitter")),
            CriterionSpec("percentile", "States the target as a tail percentile",
                          phrases=("p99", "tail percentile")),
            CriterionSpec("launch", "Budgets GPU kernel launch overhead",
                          phrases=("kernel launch overhead", "fixed cost per GPU call")),
            CriterionSpec("target", "Internal target of about 15ms", kind="numeric",
                          phrases=("internal target",), expected_value=15, unit="ms",
                          tolerance_percent=10),
        ),
    )


def adversarial_answers() -> dict[str, str]:
    """Hostile answers up to the 20,000-character limit, built deterministically."""
    limit = 20000
    numbers = " ".join(f"{(i * 37) % 997 + 1}ms" for i in range(5000))[:limit]
    bare = " ".join(str((i * 13) % 97 + 1) for i in range(8000))[:limit]
    sums = " + ".join(str(i % 9 + 1) for i in range(6000))[: limit - 10] + " = 100"
    products = " x ".join(str(i % 8 + 2) for i in range(6000))[: limit - 10] + " = 100"
    prose = ("At 50k QPS and 40 per GPU that's 1,250 GPUs, so 20% headroom gives 1,500; "
             "7ms vs 12ms is 42% faster, 2ms + 3ms + 5ms = 10ms. ")
    return {
        "thousands_of_numbers": numbers,
        "thousands_of_bare_numbers": bare,
        "one_20000_digit_number": "9" * limit,
        "long_sum_chain": sums,
        "long_product_chain": products,
        "arithmetic_prose_repeated": (prose * (limit // len(prose) + 1))[:limit],
        "one_20000_char_word": "a" * limit,
        # Thousands of machine counts in one sentence, after headroom words.
        "thousands_of_gpu_counts_in_one_sentence": (
            "With 20% on top, so " + " ".join(f"{i} GPUs" for i in range(1, 3000)))[:limit],
        # The forms the second round of issue 9 reads: concessions, conditions of health,
        # fronted rejections, shares of figures, averages (each repeated to the limit).
        "dismissal_forms_repeated": (_DISMISSAL_FORMS * (limit // len(_DISMISSAL_FORMS) + 1))
        [:limit],
        # The fifth round's readings: tools' features, real-time factor, precision sizes, shares
        # of a rate over a window, concessions turned down.
        "wrong_fact_forms_repeated": (_WRONG_FACT_FORMS * (limit // len(_WRONG_FACT_FORMS) + 1))
        [:limit],
    }


_DISMISSAL_FORMS = (
    "We'd have to rebuild it, but that's just a CI job. If requests succeed, the platform is "
    "healthy and 5xx is enough. Accuracy I wouldn't monitor. We do 6,000 orders an hour, so 2% "
    "is 1,200 orders. It comes back in 12ms on average. 25 against 18 is about 5ms over. "
)


_WRONG_FACT_FORMS = (
    "TensorRT handles dynamic shapes while TorchServe needs fixed optimization profiles. RTF is "
    "3.3, comfortably inside our limit. FP16 stores each weight in one byte. We take 40k orders "
    "an hour, so 2% over the 15 minutes is about 8,000 orders. You could add a gate, but I'd "
    "skip it. Network 3ms, model 6ms, post 2ms, queue 5ms, so that adds up to the 10. "
)


def time_answers(engine: object, spec: QuestionSpec, answer: str, runs: int) -> list[float]:
    durations = []
    for _ in range(runs):
        started = time.perf_counter()
        engine.score(spec, answer)
        durations.append(time.perf_counter() - started)
    return durations


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main() -> None:
    bank = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_BANK
    specs = load_bank(bank) if bank.exists() else []
    spec = next((s for s in specs if "20ms" in s.prompt and s.criteria), None) or fallback_spec()
    engine = get_engine("rubric")
    long_answer = (TYPICAL + "\n\n") * (20000 // (len(TYPICAL) + 2) + 1)
    long_answer = long_answer[:20000]
    time_answers(engine, spec, TYPICAL, 5)  # warm caches
    typical = time_answers(engine, spec, TYPICAL, 300)
    long = time_answers(engine, spec, long_answer, 20)
    short: dict[str, object] = {"embeddings": embeddings.available()}
    started = time.perf_counter()
    engine.score(SHORT_SPEC, SHORT_ANSWER)  # loads the model, once per process
    short["first_score_ms"] = round((time.perf_counter() - started) * 1000, 1)
    short_times = time_answers(engine, SHORT_SPEC, SHORT_ANSWER, 50)
    short_long = time_answers(engine, SHORT_SPEC, long_answer, 10)
    short.update({
        "median_ms": round(statistics.median(short_times) * 1000, 3),
        "p95_ms": round(percentile(short_times, 0.95) * 1000, 3),
        "long_answer_median_ms": round(statistics.median(short_long) * 1000, 3),
        "long_answer_p95_ms": round(percentile(short_long, 0.95) * 1000, 3),
    })
    # Each hostile answer is timed in rounds alternating with the typical one, so a busy
    # machine slows both sides of a ratio alike.
    adversarial: dict[str, dict[str, float]] = {}
    # Machine counts are judged only where the question asks for a count twice (before and
    # after headroom), so that answer is scored against such a question.
    counting = next((s for s in specs if sum(c.unit == "GPUs" for c in s.criteria) >= 2), spec)
    hostile = {"long_prose": long_answer, **adversarial_answers()}
    for name, answer in hostile.items():
        target = counting if name == "thousands_of_gpu_counts_in_one_sentence" else spec
        mine, theirs = [], []
        for _ in range(9):
            theirs += time_answers(engine, spec, TYPICAL, 3)
            mine += time_answers(engine, target, answer, 1)
        median = statistics.median(mine)
        adversarial[name] = {"median_ms": round(median * 1000, 3),
                             "typical_median_ms": round(statistics.median(theirs) * 1000, 3),
                             "over_typical": round(median / statistics.median(theirs), 1)}
    cpu_started = time.process_time()
    wall_started = time.perf_counter()
    count = 0
    while time.perf_counter() - wall_started < 2.0:
        engine.score(spec, TYPICAL)
        count += 1
    cpu = time.process_time() - cpu_started
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({
        "bank": str(bank) if specs else "built-in spec (bank file not found)",
        "typical_words": len(TYPICAL.split()),
        "long_chars": len(long_answer),
        "answers_per_second_per_core": round(count / cpu, 1) if cpu else None,
        "typical_median_ms": round(statistics.median(typical) * 1000, 3),
        "typical_p95_ms": round(percentile(typical, 0.95) * 1000, 3),
        "long_median_ms": round(statistics.median(long) * 1000, 3),
        "long_p95_ms": round(percentile(long, 0.95) * 1000, 3),
        "long_over_typical": round(statistics.median(long) / statistics.median(typical), 1),
        "adversarial": adversarial,
        "worst_over_typical": max(v["over_typical"] for v in adversarial.values()),
        "short_reference": short,
        "max_rss_mb": round(rss_kb / 1024, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
