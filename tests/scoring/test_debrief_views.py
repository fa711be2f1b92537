"""Debrief and progress pages: access, polling, downloads, charts, and query counts."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring import reports
from scoring.models import Debrief
from tests.scoring.test_reports import build_bank, build_finished_loop


def ready_loop(candidate, **kwargs):
    loop = build_finished_loop(candidate, **kwargs)
    debrief = reports.debrief_request(loop=loop)
    reports.debrief_build(debrief_id=debrief.pk)
    return loop


def url(name: str, loop) -> str:
    return reverse(f"scoring:{name}", kwargs={"public_id": loop.public_id})


@pytest.fixture
def logged_in(client, candidate):
    client.force_login(candidate)
    return client


def test_candidate_sees_panel_tally_chart_and_table(logged_in, candidate):
    loop = ready_loop(candidate)
    response = logged_in.get(url("debrief", loop))
    assert response.status_code == 200
    html = response.content.decode()
    assert "5-0 to hire" in html and "Decision: Hire" in html
    assert html.count('class="card vote vote-') == 5
    assert '<svg class="chart chart-bars" role="img"' in html
    assert "<title id=" in html and "<desc id=" in html
    assert "<caption class=\"sr-only\">Topic scores out of 100</caption>" in html
    assert "We keep 20% headroom under the 20ms contract for jitter." in html
    assert "USD 1" in html  # the offer, formatted with separators
    assert 'hx-trigger="every 2s"' not in html


def test_other_candidates_get_404_and_anonymous_users_are_sent_to_log_in(
        client, candidate, other_candidate):
    loop = ready_loop(candidate)
    client.force_login(other_candidate)
    for name in ("debrief", "debrief_status", "debrief_markdown", "debrief_pdf"):
        assert client.get(url(name, loop)).status_code == 404, name
    client.logout()
    response = client.get(url("debrief", loop))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_staff_can_read_any_debrief(client, candidate, admin_user):
    loop = ready_loop(candidate)
    client.force_login(admin_user)
    assert client.get(url("debrief", loop)).status_code == 200


def test_pending_debrief_polls_until_ready_then_stops_polling(logged_in, candidate):
    loop = build_finished_loop(candidate)
    debrief = reports.debrief_request(loop=loop)
    page = logged_in.get(url("debrief", loop)).content.decode()
    assert 'hx-trigger="every 2s"' in page and "The panel is meeting" in page
    assert 'aria-live="polite"' in page
    status_url = url("debrief_status", loop) + f"?version={debrief.version}"
    pending = logged_in.get(status_url, headers={"HX-Request": "true"})
    assert pending.status_code == 200 and 'hx-trigger="every 2s"' in pending.content.decode()
    reports.debrief_build(debrief_id=debrief.pk)
    ready = logged_in.get(status_url, headers={"HX-Request": "true"})
    assert ready.status_code == 286  # htmx stops polling and swaps in the report
    body = ready.content.decode()
    assert "5-0 to hire" in body and 'hx-swap-oob="true"' in body
    assert "<html" not in body


def test_failed_debrief_says_so(logged_in, candidate):
    loop = build_finished_loop(candidate)
    debrief = reports.debrief_request(loop=loop)
    Debrief.objects.filter(pk=debrief.pk).update(status=Debrief.Status.FAILED, error="boom")
    assert "could not be written" in logged_in.get(url("debrief", loop)).content.decode()
    assert logged_in.get(url("debrief_status", loop)).status_code == 286


def test_old_versions_stay_readable(logged_in, candidate):
    loop = ready_loop(candidate)
    second = reports.debrief_request(loop=loop, reason="Interviewer changed a score")
    reports.debrief_build(debrief_id=second.pk)
    html = logged_in.get(url("debrief", loop)).content.decode()
    assert "version 2" in html and "?version=1" in html
    assert logged_in.get(url("debrief", loop) + "?version=1").status_code == 200
    assert logged_in.get(url("debrief", loop) + "?version=9").status_code == 404
    assert logged_in.get(url("debrief", loop) + "?version=x").status_code == 404


def test_markdown_download(logged_in, candidate):
    loop = ready_loop(candidate, quality="empty")
    response = logged_in.get(url("debrief_markdown", loop))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/markdown")
    assert response["Content-Disposition"].startswith("attachment; filename=\"debrief-")
    text = response.content.decode()
    assert "0-5 to reject" in text and "## Practise first" in text and "## Offer" not in text


def test_pdf_download(logged_in, candidate):
    loop = ready_loop(candidate)
    response = logged_in.get(url("debrief_pdf", loop))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")
    assert response["Content-Disposition"].endswith('.pdf"')


def test_downloads_404_while_pending(logged_in, candidate):
    loop = build_finished_loop(candidate)
    reports.debrief_request(loop=loop)
    assert logged_in.get(url("debrief_markdown", loop)).status_code == 404
    assert logged_in.get(url("debrief_pdf", loop)).status_code == 404


def test_debrief_page_queries_do_not_grow_with_versions(logged_in, candidate,
                                                        django_assert_max_num_queries):
    loop = ready_loop(candidate)
    for _ in range(5):
        reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk)
    with django_assert_max_num_queries(8):
        assert logged_in.get(url("debrief", loop)).status_code == 200


def test_progress_shows_scores_over_time_and_weakest_criteria(logged_in, candidate):
    bank = build_bank()
    ready_loop(candidate, bank=bank, quality="empty")
    ready_loop(candidate, bank=bank, quality="mixed")
    ready_loop(candidate, bank=bank, quality="strong")
    html = logged_in.get(reverse("scoring:progress")).content.decode()
    assert '<svg class="chart chart-lines" role="img"' in html
    assert "Scores over time" in html and "Your weakest criteria" in html
    assert "Waits for a stabilization window before judging the canary" in html
    assert html.count("<tr>") >= 4  # header + three loops


def test_progress_shows_only_my_loops(client, candidate, other_candidate):
    ready_loop(other_candidate)
    client.force_login(candidate)
    html = client.get(reverse("scoring:progress")).content.decode()
    assert "No debriefs yet" in html


def test_progress_queries_are_constant_as_loops_grow(logged_in, candidate,
                                                     django_assert_max_num_queries):
    bank = build_bank()
    for _ in range(2):
        ready_loop(candidate, bank=bank, quality="mixed")
    with django_assert_max_num_queries(6) as few:
        logged_in.get(reverse("scoring:progress"))
    for _ in range(4):
        ready_loop(candidate, bank=bank, quality="strong")
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert logged_in.get(reverse("scoring:progress")).status_code == 200


def test_progress_counts_each_loop_once_at_its_newest_version(logged_in, candidate):
    from scoring.models import Debrief

    loop = ready_loop(candidate, quality="mixed")
    newer = reports.debrief_request(loop=loop, reason="Scorecard")
    reports.debrief_build(debrief_id=newer.pk)
    Debrief.objects.filter(pk=newer.pk).update(
        report={**Debrief.objects.get(pk=newer.pk).report, "overall": 77.0})
    response = logged_in.get(reverse("scoring:progress"))
    rows = response.context["rows"]
    assert len(rows) == 1
    assert rows[0]["overall"] == 77.0
