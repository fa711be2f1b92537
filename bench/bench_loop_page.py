"""Benchmark the loop's question page under concurrent candidates.

Server time (WSGI app entry to response end, measured in-process) for the question page with
a scored answer and its feedback, beside a trivial logged-in view served the same way (same
middleware, same session lookup), as median and p95, and their ratio.

Run: DATABASE_URL=postgres://... REDIS_URL=redis://... python bench/bench_loop_page.py
     [--candidates 8] [--requests 40] [--past-loops 30]
It uses (keeps, and empties first) a test_* database next to DATABASE_URL's. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mockloop_bench")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.decorators import login_required  # noqa: E402
from django.db import connection  # noqa: E402
from django.http import HttpRequest, HttpResponse  # noqa: E402
from django.urls import include, path  # noqa: E402


@login_required
def trivial(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [path("bench/trivial/", trivial), path("", include("config.urls"))]


class PooledServer(WSGIServer):
    """A fixed pool of worker threads (like gunicorn's gthread), so each thread keeps its
    persistent database connection instead of opening one per request."""

    pool_size = 8

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.pool = ThreadPoolExecutor(max_workers=self.pool_size)

    def process_request(self, request, client_address):  # type: ignore[no-untyped-def]
        self.pool.submit(self._handle, request, client_address)

    def _handle(self, request, client_address):  # type: ignore[no-untyped-def]
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def timed(app, samples: dict[str, list[float]]):  # type: ignore[no-untyped-def]
    lock = threading.Lock()

    def wrapper(environ, start_response):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        body = b"".join(app(environ, start_response))
        elapsed = (time.perf_counter() - started) * 1000
        kind = "trivial" if environ["PATH_INFO"].startswith("/bench/") else "loop_page"
        with lock:
            samples[kind].append(elapsed)
        return [body]

    return wrapper


def build_data(candidates: int, past_loops: int) -> list[tuple[str, str]]:
    """One in-progress loop per candidate (question 1 answered and scored), plus past loops."""
    from django.contrib.sessions.backends.db import SessionStore

    from interviews import services
    from interviews.models import Loop
    from tests.factories import UserFactory
    from tests.interviews.data import fake_score, make_bank

    bank = make_bank(topics=4, per_topic=3)
    result = []
    for index in range(candidates):
        user = UserFactory(username=f"bench_{index}_{time.time_ns()}")
        for _ in range(past_loops):
            past = services.loop_start(candidate=user, bank=bank, format=Loop.Format.SINGLE)
            answer = services.answer_submit(loop_question=past.loop_questions.get(),
                                            text="I would leave headroom.").answer
            fake_score(answer, evidence_text="leave headroom")
            services.loop_finish(loop=past)
        loop = services.loop_start(candidate=user, bank=bank, format=Loop.Format.FULL)
        first = loop.loop_questions.get(position=1)
        services.loop_question_show(loop_question=first)
        answer = services.answer_submit(
            loop_question=first,
            text="We set 25ms. I would leave headroom for network jitter. " * 20).answer
        fake_score(answer, evidence_text="I would leave headroom for network jitter.")
        session = SessionStore()
        session["_auth_user_id"] = str(user.pk)
        session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
        session["_auth_user_hash"] = user.get_session_auth_hash()
        session.save()
        result.append((session.session_key, f"/loops/{loop.public_id}/q/1/"))
    return result


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--candidates", type=int, default=8)
    parser.add_argument("--requests", type=int, default=40, help="per candidate and page")
    parser.add_argument("--past-loops", type=int, default=30)
    args = parser.parse_args()

    settings.ROOT_URLCONF = __name__
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["*"]
    settings.CELERY_TASK_ALWAYS_EAGER = False
    # Own database: the test_ name of DATABASE_URL's, created and migrated once, then kept.
    connection.creation.create_test_db(verbosity=0, keepdb=True, serialize=False)
    from django.core.management import call_command

    call_command("flush", interactive=False, verbosity=0)  # a clean slate in the kept db
    from scoring import enqueue as scoring_enqueue

    scoring_enqueue.enqueue = lambda name, object_id: True  # no broker traffic
    sessions = build_data(args.candidates, args.past_loops)

    from django.core.wsgi import get_wsgi_application

    PooledServer.pool_size = args.candidates

    samples: dict[str, list[float]] = {"loop_page": [], "trivial": []}
    server = make_server("127.0.0.1", 0, timed(get_wsgi_application(), samples),
                         server_class=PooledServer, handler_class=QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    errors: list[str] = []

    def candidate(session_key: str, loop_path: str) -> None:
        cookie = f"{settings.SESSION_COOKIE_NAME}={session_key}"
        for index in range(args.requests * 2):
            page = loop_path if index % 2 == 0 else "/bench/trivial/"
            request = urllib.request.Request(base + page,  # noqa: S310 - our local server
                                             headers={"Cookie": cookie})
            try:
                with urllib.request.urlopen(request) as response:  # noqa: S310 - local server
                    response.read()
                    if response.status != 200:
                        errors.append(f"{page}: {response.status}")
            except Exception as error:
                errors.append(f"{page}: {error}")

    for session_key, loop_path in sessions[:1]:  # warm up templates and connections
        urllib.request.urlopen(urllib.request.Request(  # noqa: S310
            base + loop_path, headers={"Cookie": f"{settings.SESSION_COOKIE_NAME}={session_key}"})
        ).read()
    samples["loop_page"].clear()
    samples["trivial"].clear()

    threads = [threading.Thread(target=candidate, args=pair) for pair in sessions]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    server.shutdown()

    loop_page, trivial_page = samples["loop_page"], samples["trivial"]
    report = {
        "concurrent_candidates": args.candidates,
        "past_loops_per_candidate": args.past_loops,
        "requests": {"loop_page": len(loop_page), "trivial": len(trivial_page)},
        "errors": errors[:5],
        "loop_page_ms": {"median": round(statistics.median(loop_page), 2),
                         "p95": round(percentile(loop_page, 0.95), 2)},
        "trivial_ms": {"median": round(statistics.median(trivial_page), 2),
                       "p95": round(percentile(trivial_page, 0.95), 2)},
        "ratio": {"median": round(statistics.median(loop_page) / statistics.median(trivial_page),
                                  2),
                  "p95": round(percentile(loop_page, 0.95) / percentile(trivial_page, 0.95), 2)},
        "throughput_rps": round((len(loop_page) + len(trivial_page)) / wall, 1),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
