"""The PDF is the print view: same template and stylesheets, real tables, the topic chart, and
any script the candidate writes in. Pages are turned into images (pdftoppm) and checked."""

from __future__ import annotations

import subprocess
from pathlib import Path

from django.conf import settings
from django.urls import reverse
from PIL import Image

from interviews.models import Answer, Scorecard
from scoring import reports
from tests.factories import UserFactory
from tests.scoring.test_reports import build_finished_loop

UNICODE_NOTE = "Ошибка в расчёте KV-кэша; 推理服务的容量不足 — naïve ≈ 2× off"
PAGES = Path(settings.BASE_DIR) / "var" / "test-artifacts" / "debrief-pdf"


def pdf_for(client, candidate) -> bytes:
    loop = build_finished_loop(candidate, quality="mixed", follow_up_on=(2,))
    loop.bank.title = "Inference serving — 推理 · Ünïcödé"
    loop.bank.save(update_fields=["title"])
    answer = Answer.objects.get(loop_question__loop=loop, loop_question__position=3)
    Scorecard.objects.create(answer=answer, interviewer=UserFactory(username="rev_admin",
                                                                   first_name="Riley"),
                             verdicts={}, rating=1, recommendation="strong_no_hire",
                             notes=UNICODE_NOTE)
    reports.debrief_build(debrief_id=reports.debrief_request(loop=loop).pk)
    client.force_login(candidate)
    response = client.get(reverse("scoring:debrief_pdf", kwargs={"public_id": loop.public_id}))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    return response.content


def test_the_pdf_is_the_print_view_with_tables_chart_and_unicode(client, candidate):
    PAGES.mkdir(parents=True, exist_ok=True)
    path = PAGES / "debrief.pdf"
    path.write_bytes(pdf_for(client, candidate))
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True,
                          capture_output=True, text=True).stdout
    assert UNICODE_NOTE.split(";")[0] in text and "推理服务的容量不足" in text
    assert "Inference serving — 推理 · Ünïcödé" in text  # not transliterated
    assert "| Topic | Score |" not in text and "Hire. Hire:" not in text
    assert "Score per topic" in text and "Question by question" in text
    assert "Interviewer 1" in text and "Riley" not in text and "rev_admin" not in text
    assert "Log out" not in text and "Download PDF" not in text  # print CSS hides the chrome
    # The topic table is a table: its header cells sit on one line.
    assert any(all(word in line.upper() for word in ("TOPIC", "SCORE", "QUESTIONS"))
               for line in text.splitlines())
    # Look at the pages: page 1 carries the chart (coloured bars) and is not blank.
    for old in PAGES.glob("page-*.png"):
        old.unlink()
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(path), str(PAGES / "page")], check=True)
    pages = sorted(PAGES.glob("page-*.png"))
    assert 1 <= len(pages) <= 4
    colours = set()
    for page in pages:
        image = Image.open(page).convert("RGB")
        colours |= {rgb for _, rgb in image.getcolors(maxcolors=1 << 20) or []
                    if max(rgb) - min(rgb) > 60}  # saturated pixels: the chart's bars
    assert colours, "no chart drawn in the PDF"
