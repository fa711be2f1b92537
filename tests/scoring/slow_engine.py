"""A test-only engine: the real rubric engine, slowed down so a test can kill a worker mid-task.

Loaded into a worker with MOCKLOOP_SCORING_ENGINE_MODULES=tests.scoring.slow_engine.
"""

from __future__ import annotations

import os
import time

from scoring.engines.base import QuestionSpec, ScoreOutcome, get_engine, register


@register
class SlowRubricEngine:
    name = "slow-rubric"
    version = "test"

    def score(self, question: QuestionSpec, answer: str) -> ScoreOutcome:
        time.sleep(float(os.environ.get("SLOW_ENGINE_SECONDS", "4")))
        return get_engine("rubric").score(question, answer)
