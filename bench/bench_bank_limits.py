"""How fast hostile bank files are refused, against parsing the bundled bank (issue 10).

    .venv/bin/python bench/bench_bank_limits.py

Medians of 5 runs of parse_bank (validation only, no database)."""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from interviews.bankfiles import MAX_FILE_BYTES, BankFileError, parse_bank  # noqa: E402

CASES = {
    "bundled bank (valid, 248 KB)": (
        settings.MOCKLOOP_BUNDLED_BANKS_DIR / "inference-serving-ai-engineers.yaml").read_bytes(),
    "2 MB, a million-item list": ("slug: x\nx: [" + "1," * 1_000_000 + "1]\n").encode(),
    "1 MB, 500,000-item list": ("slug: x\nx: [" + "1," * (MAX_FILE_BYTES // 2 - 20)
                                + "1]\n").encode(),
    "3,000 nested [": ("slug: x\nx: " + "[" * 3000 + "]" * 3000 + "\n").encode(),
}


def main() -> None:
    baseline = None
    for name, content in CASES.items():
        times = []
        for _ in range(5):
            started = time.perf_counter()
            try:
                parse_bank(content)
                outcome = "valid"
            except BankFileError as error:
                outcome = error.errors[0][:70]
            times.append(time.perf_counter() - started)
        median = statistics.median(times) * 1000
        baseline = baseline or median
        print(f"{name:32} {median:8.1f} ms  ({median / baseline:.2f}x bundled)  {outcome}")


if __name__ == "__main__":
    main()
