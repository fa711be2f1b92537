"""Celery is configured as the pipeline relies on: JSON only, time limits, late acks where the
status guard makes reruns safe, and beat running the sweeps."""

from __future__ import annotations

from django.conf import settings

from config import celery_app


def test_serialisation_is_json_only():
    assert celery_app.conf.task_serializer == "json"
    assert celery_app.conf.accept_content == ["json"]


def test_beat_schedule_names_registered_tasks():
    celery_app.loader.import_default_modules()
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in celery_app.tasks, entry["task"]


def test_scoring_task_acks_late_with_time_limits_and_retries():
    from scoring.tasks import score_answer

    assert score_answer.acks_late is True
    assert score_answer.time_limit and score_answer.soft_time_limit
    assert score_answer.max_retries and score_answer.autoretry_for
    assert celery_app.conf.task_reject_on_worker_lost is True
