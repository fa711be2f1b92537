"""The scoring pipeline: on-commit enqueue, a real worker on the real broker, exactly-once
scores, visible status, and recovery from a killed worker, a lost broker and a down worker."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from config import celery_app
from interviews.models import Answer
from scoring import services
from scoring.models import ScoreResult
from tests.scoring.conftest import make_answer

ROOT = Path(settings.BASE_DIR)


def wait_for(condition, timeout: float = 30.0, interval: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return False


def status_of(answer: Answer) -> str:
    return Answer.objects.values_list("scoring_status", flat=True).get(pk=answer.pk)


# --- The service, without a broker --------------------------------------------------------


def test_scoring_stores_one_result_with_evidence(scorable_question):
    answer = make_answer(scorable_question)
    result = services.answer_score(answer_id=answer.pk)
    answer.refresh_from_db()
    assert answer.scoring_status == Answer.ScoringStatus.SCORED
    assert result.engine == "rubric"
    assert result.rubric_version == scorable_question.rubric_version
    assert 0 < result.total <= 100
    made = [c for c in result.criteria if c["verdict"] == "made"]
    assert made and all(c["evidence"] for c in made)


def test_scoring_twice_keeps_one_score(scorable_question):
    answer = make_answer(scorable_question)
    first = services.answer_score(answer_id=answer.pk)
    second = services.answer_score(answer_id=answer.pk)
    assert first.pk == second.pk
    assert ScoreResult.objects.filter(answer=answer).count() == 1
    answer.refresh_from_db()
    assert answer.scoring_attempts == 1


def test_engine_failure_is_visible_with_a_reason(scorable_question):
    answer = make_answer(scorable_question)
    answer.loop_question.snapshot["spec"]["criteria"][0]["weight"] = "not-a-number"
    answer.loop_question.save()
    with pytest.raises(ValueError, match="could not convert"):
        services.answer_score(answer_id=answer.pk)
    answer.refresh_from_db()
    assert answer.scoring_status == Answer.ScoringStatus.FAILED
    assert "ValueError" in answer.scoring_error


def test_sweep_resends_only_stuck_answers(scorable_question, monkeypatch):
    sent: list[int] = []
    monkeypatch.setattr("scoring.tasks.score_answer.delay", sent.append)
    stuck = make_answer(scorable_question)
    fresh = make_answer(scorable_question)
    Answer.objects.filter(pk=stuck.pk).update(
        status_changed_at=stuck.status_changed_at - timedelta(hours=1))
    assert services.scoring_sweep() == [stuck.pk]
    assert sent == [stuck.pk]
    assert services.scoring_sweep() == []  # touched, so not resent while in flight
    assert fresh.pk not in sent


def test_sweep_command(scorable_question, monkeypatch, capsys):
    monkeypatch.setattr("scoring.tasks.score_answer.delay", lambda answer_id: None)
    make_answer(scorable_question)
    call_command("sweep_scoring", "--older-than", "0")
    assert "Re-enqueued 1 answer(s)." in capsys.readouterr().out


def test_enqueue_waits_for_commit(scorable_question, monkeypatch,
                                  django_capture_on_commit_callbacks):
    sent: list[int] = []
    monkeypatch.setattr("scoring.tasks.score_answer.delay", sent.append)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        answer = make_answer(scorable_question, enqueue=True)
        assert sent == []  # nothing is sent before the answer's transaction commits
    assert len(callbacks) == 1
    assert sent == [answer.pk]


def test_unreachable_broker_keeps_the_answer_queued(scorable_question, monkeypatch,
                                                    django_capture_on_commit_callbacks):
    def broker_down(answer_id: int) -> None:
        raise ConnectionError("Redis is down")

    monkeypatch.setattr("scoring.tasks.score_answer.delay", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        answer = make_answer(scorable_question, enqueue=True)
    assert status_of(answer) == Answer.ScoringStatus.QUEUED


# --- A real worker on the real broker ----------------------------------------------------


@pytest.fixture
def celery_worker_thread(transactional_db) -> Iterator[None]:
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        yield


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_scores_submitted_answers_exactly_once(scorable_question, celery_worker_thread):
    answers = [make_answer(scorable_question, enqueue=True) for _ in range(3)]
    assert wait_for(lambda: all(status_of(a) == "scored" for a in answers))
    # A duplicate delivery (a retry after a network error) changes nothing.
    from scoring.tasks import score_answer

    score_answer.delay(answers[0].pk)
    time.sleep(1)
    assert ScoreResult.objects.filter(answer__in=answers).count() == 3


# --- Faults: a killed worker, a restarted broker, a worker down for an hour --------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateRedis:
    """A Redis server of our own, so the test can stop and restart it without touching others."""

    def __init__(self, port: int):
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(  # noqa: S603
            [shutil.which("redis-server") or "redis-server", "--port", str(self.port),
             "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert wait_for(self.is_up, timeout=10)

    def is_up(self) -> bool:
        import redis

        try:
            return bool(redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping())
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None


class WorkerProcess:
    """`celery worker` in its own process, as in production, pointed at the test database."""

    def __init__(self, broker_url: str, log_path: Path, *, slow: bool = False):
        self.broker_url = broker_url
        self.log_path = log_path
        self.slow = slow
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": _test_database_url(),
            "REDIS_URL": self.broker_url,
            "MOCKLOOP_SCORING_ENGINE_MODULES": "tests.scoring.slow_engine",
            "MOCKLOOP_SCORING_ENGINE": "slow-rubric" if self.slow else "rubric",
        }
        self.process = subprocess.Popen(  # noqa: S603
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo",
             "--without-mingle", "--without-gossip", "--loglevel", "INFO"],
            cwd=ROOT, env=env, stdout=self.log_path.open("ab"), stderr=subprocess.STDOUT)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


def _test_database_url() -> str:
    db = connection.settings_dict
    user = db.get("USER") or "postgres"
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{host}:{port}/{db['NAME']}"


def reset_broker_connections() -> None:
    """Drop pooled connections so the next send connects afresh (to a new URL or server)."""
    import kombu.pools

    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    kombu.pools.reset()


@pytest.fixture
def private_broker(tmp_path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(free_port())
    server.start()
    old_url = celery_app.conf.broker_url
    celery_app.conf.broker_url = server.url
    reset_broker_connections()
    yield server
    server.stop()
    celery_app.conf.broker_url = old_url
    reset_broker_connections()


@pytest.fixture
def workers(tmp_path) -> Iterator[list[WorkerProcess]]:
    started: list[WorkerProcess] = []
    yield started
    for worker in started:
        worker.stop()


def start_worker_process(broker: PrivateRedis, workers: list[WorkerProcess], tmp_path: Path,
                         *, slow: bool = False) -> WorkerProcess:
    worker = WorkerProcess(broker.url, tmp_path / "worker.log", slow=slow)
    worker.start()
    workers.append(worker)
    return worker


def sweep_now() -> list[int]:
    return services.scoring_sweep(older_than=timedelta(0))


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_killed_mid_task_loses_nothing(scorable_question, private_broker, workers,
                                              tmp_path):
    worker = start_worker_process(private_broker, workers, tmp_path, slow=True)
    answer = make_answer(scorable_question, enqueue=True)
    assert wait_for(lambda: status_of(answer) == "scoring", timeout=60), (
        (tmp_path / "worker.log").read_text())
    worker.kill()  # SIGKILL while the engine is working: no chance to clean up
    assert status_of(answer) == "scoring"
    assert not ScoreResult.objects.filter(answer=answer).exists()

    start_worker_process(private_broker, workers, tmp_path)
    sweep_now()  # what beat runs every few minutes
    assert wait_for(lambda: status_of(answer) == "scored", timeout=60), (
        (tmp_path / "worker.log").read_text())
    assert ScoreResult.objects.filter(answer=answer).count() == 1


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_broker_restart_loses_nothing(scorable_question, private_broker, workers, tmp_path):
    # Answers queued while no worker runs are lost with the broker (it keeps nothing on disk).
    queued = [make_answer(scorable_question, enqueue=True) for _ in range(2)]
    private_broker.stop()
    during_outage = make_answer(scorable_question, enqueue=True)  # enqueue fails: stays queued
    private_broker.start()
    reset_broker_connections()
    start_worker_process(private_broker, workers, tmp_path)
    everything = [*queued, during_outage]
    time.sleep(2)
    assert all(status_of(a) == "queued" for a in everything)  # nothing arrived by itself
    sweep_now()
    assert wait_for(lambda: all(status_of(a) == "scored" for a in everything), timeout=60), (
        (tmp_path / "worker.log").read_text())
    assert ScoreResult.objects.filter(answer__in=everything).count() == 3


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_down_for_an_hour_scores_when_it_returns(scorable_question, private_broker,
                                                        workers, tmp_path):
    answers = [make_answer(scorable_question, enqueue=True) for _ in range(3)]
    # An hour passes with no worker; the sweep resends (duplicates pile up in the queue).
    Answer.objects.filter(pk__in=[a.pk for a in answers]).update(
        status_changed_at=answers[0].status_changed_at - timedelta(hours=1))
    assert len(services.scoring_sweep()) == 3
    start_worker_process(private_broker, workers, tmp_path)
    assert wait_for(lambda: all(status_of(a) == "scored" for a in answers), timeout=60), (
        (tmp_path / "worker.log").read_text())
    time.sleep(1)  # let the duplicate deliveries run too
    assert ScoreResult.objects.filter(answer__in=answers).count() == 3


@pytest.mark.django_db
def test_broker_down_at_finish_leaves_the_debrief_for_the_sweep(
        monkeypatch, django_capture_on_commit_callbacks):
    """Finishing a loop never fails because Redis is down; the sweep sends the debrief later."""
    from scoring import reports
    from scoring.models import Debrief
    from tests.factories import UserFactory
    from tests.scoring.test_reports import build_finished_loop

    def broker_down(debrief_id: int) -> None:
        raise ConnectionError("Redis is down")

    monkeypatch.setattr("scoring.tasks.build_debrief.delay", broker_down)
    loop = build_finished_loop(UserFactory(), questions=2)
    with django_capture_on_commit_callbacks(execute=True):
        debrief = reports.debrief_request(loop=loop)
    assert Debrief.objects.get(pk=debrief.pk).status == Debrief.Status.PENDING

    sent: list[int] = []
    monkeypatch.setattr("scoring.tasks.build_debrief.delay", sent.append)
    assert services.debrief_sweep(older_than=timedelta(0)) == [debrief.pk]
    assert sent == [debrief.pk]


# --- Fast failure and the retry cap -------------------------------------------------------


def test_enqueue_with_the_broker_down_returns_at_once(scorable_question, settings):
    """No blocking publish retries on the request path: Submit does not hang on Redis."""
    from scoring.enqueue import enqueue

    port = free_port()  # nothing listens there
    old_url = celery_app.conf.broker_url
    celery_app.conf.broker_url = f"redis://127.0.0.1:{port}/0"
    reset_broker_connections()
    try:
        enqueue("scoring.tasks.score_answer", 1)  # first use imports the transport
        started = time.perf_counter()
        sent = [enqueue("scoring.tasks.score_answer", answer_id) for answer_id in (1, 2, 3)]
        elapsed = time.perf_counter() - started
    finally:
        celery_app.conf.broker_url = old_url
        reset_broker_connections()
    assert sent == [False, False, False]
    assert elapsed < 1.5, f"three failed sends took {elapsed:.2f} s"


def test_scoring_stops_after_the_attempt_cap(scorable_question, settings):
    settings.MOCKLOOP_SCORING_MAX_ATTEMPTS = 3
    answer = make_answer(scorable_question)
    Answer.objects.filter(pk=answer.pk).update(scoring_attempts=3)
    assert services.answer_score(answer_id=answer.pk) is None
    answer.refresh_from_db()
    assert answer.scoring_status == Answer.ScoringStatus.FAILED
    assert "3 times" in answer.scoring_error
    assert not ScoreResult.objects.filter(answer=answer).exists()


def test_the_sweep_gives_up_on_an_answer_that_used_its_attempts(scorable_question, settings,
                                                                 monkeypatch):
    settings.MOCKLOOP_SCORING_MAX_ATTEMPTS = 2
    sent: list[int] = []
    monkeypatch.setattr("scoring.tasks.score_answer.delay", sent.append)
    poison = make_answer(scorable_question)
    fine = make_answer(scorable_question)
    Answer.objects.filter(pk=poison.pk).update(scoring_attempts=2,
                                               scoring_status=Answer.ScoringStatus.SCORING)
    assert sweep_now() == [fine.pk]
    assert sent == [fine.pk]
    assert status_of(poison) == Answer.ScoringStatus.FAILED


def test_manual_retry_is_refused_after_the_cap(scorable_question, settings, monkeypatch,
                                               django_capture_on_commit_callbacks):
    settings.MOCKLOOP_SCORING_MAX_ATTEMPTS = 2
    sent: list[int] = []
    monkeypatch.setattr("scoring.tasks.score_answer.delay", sent.append)
    answer = make_answer(scorable_question)
    Answer.objects.filter(pk=answer.pk).update(scoring_attempts=1,
                                               scoring_status=Answer.ScoringStatus.FAILED)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.answer_retry_scoring(answer=answer) is True
    assert sent == [answer.pk]
    Answer.objects.filter(pk=answer.pk).update(scoring_attempts=2,
                                               scoring_status=Answer.ScoringStatus.FAILED)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.answer_retry_scoring(answer=answer) is False
    assert sent == [answer.pk]
    answer.refresh_from_db()
    assert answer.scoring_status == Answer.ScoringStatus.FAILED
    assert "the most allowed" in answer.scoring_error
