"""Issue 9, ninth round: a point put in other people's mouths and then turned down ("people will
tell you X, but I'd rather not", "I know the argument that X, I don't really buy it"), points
parked as a later problem or another team's job, and alerts retired. Sentences written for this
file; each has a twin that keeps the point."""

from __future__ import annotations

import pytest

from tests.scoring.test_features_and_senses import CREDITED, verdict

SIZING = ("Method: take the peak, divide by what one GPU sustains at the SLO. 50,000 / 40 = "
          "1,250 A100s. For zones, two surviving zones carry 1,250, so 625 per zone and 1,875 "
          "overall. ")


@pytest.mark.parametrize(("slug", "key", "rejected", "kept"), [
    ("gpu-cluster-sizing-method", "headroom-reasoning",
     SIZING + "People will tell you the zone spare already covers spikes, but I'd rather not "
              "mix the two, belt and braces.",
     SIZING + "The zone spare already covers spikes, so I wouldn't stack another 20% on it."),
    ("inference-slis-and-alerts", "burn-rate",
     "Top of the list is p99 latency. People like fancy error-budget burn-rate alerting, I find "
     "a plain 'p99 over 15ms for 5 minutes' page works fine.",
     "Top of the list is p99 latency. I'd page on error-budget burn rate, fast and slow "
     "windows, rather than a plain threshold."),
    ("pinterest-batch-size-tradeoff", "utilization-not-waste",
     "I'd sweep batch sizes. I know the argument that 65% is really burst headroom and "
     "shouldn't be touched, I don't really buy it, an idle third of a GPU is money on fire.",
     "I'd sweep batch sizes. 65% is really burst headroom and shouldn't be touched, an idle "
     "third of a GPU is what absorbs spikes."),
    ("canary-and-versioning-design", "bake-window",
     "Canary: Istio weights, 2% to start. A lot of people insist on a 10-15 minute bake after "
     "each shift - I'd rather not slow every rollout down.",
     "Canary: Istio weights, 2% to start, with a 10-15 minute bake after each shift before "
     "promoting."),
    ("inference-slis-and-alerts", "burn-rate",
     "Top of the list is p99 latency. Many teams page on error-budget burn rate. I disagree, "
     "a plain threshold is enough.",
     "Top of the list is p99 latency. Many teams page on error-budget burn rate, and I would "
     "too."),
])
def test_a_point_put_in_others_mouths_and_turned_down_is_not_made(
        slug: str, key: str, rejected: str, kept: str) -> None:
    assert verdict(slug, key, rejected) not in CREDITED
    assert verdict(slug, key, kept) in CREDITED


@pytest.mark.parametrize(("slug", "key", "parked", "kept"), [
    ("tiktok-20ms-budget", "measurement-plan",
     "I'd give myself 15ms p99. And the whole tracing-and-dashboards measurement story is a "
     "later problem, first version I'd ship it.",
     "I'd give myself 15ms p99. And the whole tracing-and-dashboards measurement story comes "
     "before launch: trace each stage and load test at peak."),
    ("oracle-serverless-cold-starts", "coldstart-latency",
     "The cold-start latency alert at 300ms I'd honestly retire. I'd page on 5xx.",
     "I'd honestly keep the cold-start latency alert at 300ms. I'd page on 5xx too."),
    ("oracle-serverless-cold-starts", "coldstart-latency",
     "I'd retire the cold-start latency alert. I'd page on 5xx.",
     "I'd keep the cold-start latency alert. I'd page on 5xx too."),
])
def test_a_point_parked_or_retired_is_not_made(slug: str, key: str, parked: str,
                                               kept: str) -> None:
    assert verdict(slug, key, parked) not in CREDITED
    assert verdict(slug, key, kept) in CREDITED
