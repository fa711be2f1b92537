"""The documented deployment (scripts/supervise: supervisord with deploy/supervisord.conf)
restarts what dies, and the worker keeps scoring through repeated Redis restarts.

Everything runs against a PRIVATE redis-server on its own port and the test database; the
machine's shared Redis and PostgreSQL are never touched.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from interviews.models import Answer
from scoring.models import ScoreResult
from tests.scoring.conftest import make_answer
from tests.scoring.test_pipeline import (
    _test_database_url,
    free_port,
    private_broker,  # noqa: F401 - fixture
    reset_broker_connections,
    status_of,
    sweep_now,
    wait_for,
)

ROOT = Path(settings.BASE_DIR)
SUPERVISE = str(ROOT / "scripts" / "supervise")


class Supervised:
    def __init__(self, run_dir: Path, env: dict[str, str], port: int):
        self.run_dir = run_dir
        self.env = env
        self.port = port

    def ctl(self, *args: str) -> str:
        result = subprocess.run([SUPERVISE, "ctl", *args], env=self.env,  # noqa: S603
                                capture_output=True, text=True, timeout=90, check=False)
        return result.stdout + result.stderr

    def pid(self, program: str) -> int:
        out = self.ctl("pid", program).strip()
        return int(out) if out.isdigit() else 0

    def all_running(self) -> bool:
        lines = self.ctl("status").splitlines()
        return len(lines) == 3 and all("RUNNING" in line for line in lines)

    def get(self, path: str) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}",  # noqa: S310
                                        timeout=5) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code
        except OSError:
            return 0

    def text(self, path: str) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}",  # noqa: S310
                                    timeout=5) as response:
            return response.read().decode()

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}"
                         for p in sorted(self.run_dir.glob("*.log")))


@pytest.fixture
def supervised(private_broker, tmp_path) -> Iterator[Supervised]:  # noqa: F811
    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": _test_database_url(),
        "REDIS_URL": private_broker.url,
        "MOCKLOOP_RUN_DIR": str(tmp_path),
        "PORT": str(port),
        "WEB_CONCURRENCY": "1",
        "CELERY_CONCURRENCY": "1",
        "MOCKLOOP_SCORING_ENGINE_MODULES": "tests.scoring.slow_engine",
        "MOCKLOOP_SCORING_ENGINE": "slow-rubric",
        "SLOW_ENGINE_SECONDS": "0.5",
    }
    subprocess.run([SUPERVISE], env=env, check=True, timeout=30)  # noqa: S603
    supervisor = Supervised(tmp_path, env, port)
    try:
        assert wait_for(supervisor.all_running, timeout=60, interval=1), supervisor.logs()
        yield supervisor
    finally:
        supervisor.ctl("shutdown")
        pidfile = tmp_path / "supervisord.pid"
        wait_for(lambda: not pidfile.exists(), timeout=60, interval=0.5)


def kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_supervisor_restarts_killed_web_and_worker(supervised, scorable_question):
    assert wait_for(lambda: supervised.get("/healthz") == 200, timeout=60), supervised.logs()
    # Beat sends the heartbeat, the worker runs it: the deployment says it is ready.
    assert wait_for(lambda: supervised.get("/readyz") == 200, timeout=60, interval=1), (
        supervised.logs())
    # Metrics in multiprocess mode (PROMETHEUS_MULTIPROC_DIR set by scripts/supervise).
    assert supervised.get("/metrics") == 200, supervised.logs()
    assert "mockloop_request_seconds_count" in supervised.text("/metrics")

    web = supervised.pid("web")
    kill(web)
    assert wait_for(lambda: supervised.pid("web") not in (0, web), timeout=60), supervised.logs()
    assert wait_for(lambda: supervised.get("/healthz") == 200, timeout=60), supervised.logs()

    answer = make_answer(scorable_question, enqueue=True)
    assert wait_for(lambda: status_of(answer) == "scoring", timeout=60), supervised.logs()
    worker = supervised.pid("worker")
    kill(worker)  # mid-task
    assert wait_for(lambda: supervised.pid("worker") not in (0, worker), timeout=60), (
        supervised.logs())
    sweep_now()  # what beat runs every minute
    assert wait_for(lambda: status_of(answer) == "scored", timeout=90), supervised.logs()
    assert ScoreResult.objects.filter(answer=answer).count() == 1


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_every_answer_is_scored_through_repeated_redis_restarts(supervised, private_broker,  # noqa: F811
                                                                scorable_question):
    everything: list[Answer] = []
    for _ in range(4):
        batch = [make_answer(scorable_question, enqueue=True) for _ in range(2)]
        # Restart while the worker holds a message (the slow engine takes 0.5 s a score).
        wait_for(lambda b=batch: any(status_of(a) != "queued" for a in b), timeout=10)
        private_broker.stop()
        started = time.perf_counter()
        batch.append(make_answer(scorable_question, enqueue=True))  # broker down: stays queued
        assert time.perf_counter() - started < 2
        private_broker.start()
        reset_broker_connections()
        everything.extend(batch)
        time.sleep(1)
    # Give the worker time to reconnect (or supervisord to restart it), then sweep as beat does.
    assert wait_for(supervised.all_running, timeout=60, interval=1), supervised.logs()
    sweep_now()
    done = wait_for(lambda: all(status_of(a) == "scored" for a in everything), timeout=120,
                    interval=0.5)
    if not done:  # a message restored to a list lost with the restart: the next sweep
        sweep_now()
        done = wait_for(lambda: all(status_of(a) == "scored" for a in everything),
                        timeout=60, interval=0.5)
    assert done, supervised.logs()
    counts = [ScoreResult.objects.filter(answer=a).count() for a in everything]
    assert counts == [1] * len(everything)
