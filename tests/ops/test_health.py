"""/healthz, /readyz and /metrics against the real PostgreSQL and Redis."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from interviews.models import Answer
from ops import health, metrics
from tests.scoring.conftest import make_answer

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _clean_heartbeat():
    health._broker().delete(health.HEARTBEAT_KEY)
    yield
    health._broker().delete(health.HEARTBEAT_KEY)


def test_healthz_answers_without_touching_the_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_is_ready_with_database_broker_and_a_fresh_heartbeat(client):
    health.heartbeat_record()
    response = client.get(reverse("readyz"))
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ready"
    assert {name for name, check in body["checks"].items() if check["ok"]} == {
        "database", "broker", "worker"}


def test_readyz_is_not_ready_without_a_worker_heartbeat(client):
    response = client.get(reverse("readyz"))
    assert response.status_code == 503
    assert response.json()["checks"]["worker"] == {"ok": False,
                                                   "detail": "no worker heartbeat seen"}


def test_readyz_is_not_ready_when_the_heartbeat_is_stale(client):
    health.heartbeat_record(now=time.time() - health.HEARTBEAT_STALE_AFTER - 5)
    response = client.get(reverse("readyz"))
    assert response.status_code == 503
    assert "s ago" in response.json()["checks"]["worker"]["detail"]


def test_readyz_is_not_ready_when_the_broker_is_unreachable(client, settings):
    from tests.scoring.test_pipeline import free_port

    health.heartbeat_record()
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{free_port()}/0"
    started = time.perf_counter()
    response = client.get(reverse("readyz"))
    assert time.perf_counter() - started < 3  # bounded by the checks' timeouts
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["broker"]["ok"] is False and "Connection" in checks["broker"]["detail"]
    assert checks["database"]["ok"] is True


def test_heartbeat_task_records_a_heartbeat():
    from ops.tasks import heartbeat

    assert health.heartbeat_seen() is None
    heartbeat()  # what a worker runs every HEARTBEAT_EVERY seconds
    assert time.time() - health.heartbeat_seen() < 5


def _sample(text: str, name: str, **labels: str) -> float:
    wanted = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith(f"{name}{{{wanted}}}" if labels else f"{name} "):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} {labels} not in metrics")


def test_metrics_report_state_and_events(client, scorable_question):
    from scoring import services

    queued = make_answer(scorable_question)
    scored = make_answer(scorable_question)
    services.answer_score(answer_id=scored.pk)
    Answer.objects.filter(pk=queued.pk).update(scoring_status=Answer.ScoringStatus.QUEUED)
    metrics.record_failure("enqueue", "OperationalError")
    client.get("/healthz")

    response = client.get(reverse("metrics"), REMOTE_ADDR="127.0.0.1")
    assert response.status_code == 200
    text = response.content.decode()
    assert _sample(text, "mockloop_answers", status="queued") == 1
    assert _sample(text, "mockloop_answers", status="scored") == 1
    assert _sample(text, "mockloop_answers", status="failed") == 0
    assert _sample(text, "mockloop_failures_total", where="enqueue",
                   reason="OperationalError") >= 1
    assert _sample(text, "mockloop_queue_depth") >= 0
    assert _sample(text, "mockloop_debrief_age_seconds", state="pending") == 0
    assert 'mockloop_request_seconds_count{method="GET",status="2xx",view="healthz"}' in text
    assert "mockloop_submit_to_score_seconds_bucket" in text


def test_submit_to_score_is_observed_when_a_score_is_stored(scorable_question,
                                                            django_capture_on_commit_callbacks):
    from scoring import services

    before = metrics.SUBMIT_TO_SCORE_SECONDS._sum.get()
    count_before = _histogram_count()
    answer = make_answer(scorable_question)
    with django_capture_on_commit_callbacks(execute=True):
        services.answer_score(answer_id=answer.pk)
    assert _histogram_count() == count_before + 1
    assert metrics.SUBMIT_TO_SCORE_SECONDS._sum.get() > before


def _histogram_count() -> float:
    for metric in metrics.SUBMIT_TO_SCORE_SECONDS.collect():
        for sample in metric.samples:
            if sample.name.endswith("_count"):
                return sample.value
    raise AssertionError("no count sample")


def test_metrics_are_refused_to_remote_callers_without_the_token(client, settings):
    assert client.get(reverse("metrics"), REMOTE_ADDR="203.0.113.9").status_code == 403
    settings.MOCKLOOP_METRICS_TOKEN = "s3cret-token"
    assert client.get(reverse("metrics"), REMOTE_ADDR="127.0.0.1").status_code == 403
    ok = client.get(reverse("metrics"), REMOTE_ADDR="203.0.113.9",
                    HTTP_AUTHORIZATION="Bearer s3cret-token")
    assert ok.status_code == 200
