"""The admin: staff curate banks; everyone else is refused."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from interviews.models import Bank, Question
from tests.factories import CriterionFactory
from tests.interviews.test_bankfiles import VALID_BANK, as_yaml

ADMIN_PAGES = [
    "admin:interviews_bank_changelist",
    "admin:interviews_bank_add",
    "admin:interviews_bank_import",
    "admin:interviews_question_changelist",
    "admin:interviews_topic_changelist",
    "admin:interviews_loop_changelist",
]


@pytest.fixture
def question(db):
    return CriterionFactory().question


@pytest.mark.parametrize("name", ADMIN_PAGES)
def test_admin_pages_load_for_staff(client, admin_user, name):
    client.force_login(admin_user)
    assert client.get(reverse(name)).status_code == 200


def test_question_change_and_preview_load_for_staff(client, admin_user, question):
    client.force_login(admin_user)
    change = client.get(reverse("admin:interviews_question_change", args=[question.pk]))
    assert change.status_code == 200
    assert b"Rubric criteria" in change.content
    preview = client.get(reverse("admin:interviews_question_preview", args=[question.pk]))
    assert preview.status_code == 200
    assert question.prompt.encode() in preview.content
    assert b"Leaves headroom under the contract" in preview.content


def test_bank_changelist_search_and_filter(client, admin_user, question):
    client.force_login(admin_user)
    url = reverse("admin:interviews_question_changelist")
    found = client.get(url, {"q": "TikTok", "is_verbatim__exact": "0"})
    assert found.status_code == 200
    assert b"1 question" in found.content


@pytest.mark.parametrize("name", ADMIN_PAGES)
def test_admin_refuses_candidates_and_interviewers(client, candidate, interviewer, name):
    for user in (candidate, interviewer):
        client.force_login(user)
        response = client.get(reverse(name))
        assert response.status_code == 302
        assert reverse("admin:login") in response["Location"]


def test_admin_refuses_anonymous_preview(client, question):
    response = client.get(reverse("admin:interviews_question_preview", args=[question.pk]))
    assert response.status_code == 302


def test_admin_import_upload_creates_bank(client, admin_user):
    client.force_login(admin_user)
    upload = SimpleUploadedFile("bank.yaml", as_yaml(VALID_BANK).encode())
    response = client.post(reverse("admin:interviews_bank_import"), {"file": upload})
    assert response.status_code == 302
    assert Bank.objects.filter(slug="tiny-bank").exists()


def test_admin_import_reports_errors_and_writes_nothing(client, admin_user):
    client.force_login(admin_user)
    bad = VALID_BANK | {"colour": "red"}
    upload = SimpleUploadedFile("bank.yaml", as_yaml(bad).encode())
    response = client.post(reverse("admin:interviews_bank_import"), {"file": upload})
    assert response.status_code == 200
    assert b"colour: unknown key" in response.content
    assert not Bank.objects.exists()
    assert not Question.objects.exists()


def test_admin_export_downloads_yaml(client, admin_user):
    from interviews.bankfiles import bank_import_text

    bank = bank_import_text(as_yaml(VALID_BANK)).bank
    client.force_login(admin_user)
    response = client.get(reverse("admin:interviews_bank_export", args=[bank.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="tiny-bank.yaml"'
    assert b"slug: tiny-bank" in response.content


def test_admin_action_writes_a_new_debrief_version(client, admin_user, candidate,
                                                   django_capture_on_commit_callbacks,
                                                   monkeypatch):
    from interviews.models import Loop
    from scoring.models import Debrief
    from tests.scoring.test_reports import build_finished_loop

    monkeypatch.setattr("scoring.tasks.build_debrief.delay", lambda debrief_id: None)
    loop = build_finished_loop(candidate, questions=2)
    unfinished = Loop.objects.create(candidate=candidate, bank=loop.bank,
                                     format=Loop.Format.SINGLE)
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("admin:interviews_loop_changelist"), {
            "action": "request_new_debrief", "_selected_action": [loop.pk, unfinished.pk]})
    assert response.status_code == 302
    assert list(Debrief.objects.filter(loop=loop).values_list("version", flat=True)) == [1]
    assert not Debrief.objects.filter(loop=unfinished).exists()
