"""Re-derive the rating gates' evidence and the band edges from graded files.

Run: python bench/fit_rating.py FILE.csv|FILE.jsonl ... (graded CSVs with question, answer,
score; or criterion-labelled JSONL with question slug, answer, grade). Needs no database: the
bundled bank's YAML is read directly. Prints, per answer graded 4 or above or rated 3 or 4, the
share of rubric weight made; then the quadratic weighted kappa of the rating against the banded
grade for the current edges and for the best edges on a 5-point grid, with the count of answers
graded below 4 that were rated 4.
"""

from __future__ import annotations

import csv
import itertools
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import yaml  # noqa: E402
from bench_scoring import DEFAULT_BANK, load_bank  # noqa: E402

from scoring.engines.base import RATING_BAND_EDGES, get_engine  # noqa: E402
from scoring.engines.rating import rubric_rating  # noqa: E402
from scoring.engines.rubric import analyse, wrong_arithmetic  # noqa: E402
from scoring.metrics import quadratic_weighted_kappa  # noqa: E402


def band(grade: float) -> int:
    return 1 if grade < 2 else 2 if grade < 3 else 3 if grade < 4 else 4


def rows(paths: list[str]) -> list[tuple[str, float, object, str]]:
    specs = load_bank(DEFAULT_BANK)
    data = yaml.safe_load(DEFAULT_BANK.read_text(encoding="utf-8"))
    slugs = [q["slug"] for t in data["topics"] for q in t["questions"]]
    by_slug = dict(zip(slugs, specs, strict=True))
    by_prompt = {s.prompt.strip(): s for s in specs}
    out = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            if path.endswith(".jsonl"):
                for line in handle:
                    item = json.loads(line)
                    out.append((item["id"], float(item["grade"]), by_slug[item["question"]],
                                item["answer"]))
            else:
                for row in csv.DictReader(handle):
                    out.append((row.get("id", ""), float(row["score"]),
                                by_prompt[row["question"].strip()], row["answer"]))
    return out


def main() -> None:
    engine = get_engine("rubric")
    scored = []
    for ident, grade, spec, answer in rows(sys.argv[1:]):
        outcome = engine.score(spec, answer)
        positive = [v for v in outcome.criteria if v.kind != "pitfall"]
        share = sum(v.weight for v in positive if v.verdict == "made") / sum(
            v.weight for v in positive)
        scored.append((grade, outcome, wrong_arithmetic(analyse(answer))))
        if grade >= 4 or outcome.rating >= 3:
            print(f"{ident:8} grade {grade:3} rating {outcome.rating} total {outcome.total:5.1f} "
                  f"made share {share:.2f}")
    bands = [band(g) for g, _, _ in scored]

    def measure(edges: tuple[float, ...]) -> tuple[float, int]:
        ratings = [rubric_rating(o.total, o.criteria, o.numbers, w, edges) for _, o, w in scored]
        false_fours = sum(1 for (g, _, _), r in zip(scored, ratings, strict=True)
                          if r == 4 and g < 4)
        return quadratic_weighted_kappa(ratings, bands), false_fours

    best = max(itertools.combinations(range(10, 100, 5), 3),
               key=lambda e: (-measure(e)[1], measure(e)[0]))
    for name, edges in (("current", RATING_BAND_EDGES), ("best on grid", best)):
        kappa, false_fours = measure(edges)
        print(f"{name} edges {edges}: QWK {kappa:.3f}, graded below 4 and rated 4: {false_fours}")


if __name__ == "__main__":
    main()
