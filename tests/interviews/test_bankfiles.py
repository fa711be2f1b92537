"""Bank files: validation with paths, all-or-nothing import, idempotent re-import, round trip."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command

from interviews.bankfiles import BankFileError, bank_export, bank_import_text, parse_bank
from interviews.models import Bank, PanelPersona, Question, RubricCriterion, Topic

VALID_BANK: dict[str, Any] = {
    "slug": "tiny-bank",
    "title": "Tiny bank",
    "role": "AI Engineer",
    "version": 1,
    "published": True,
    "decision_rule": "majority",
    "reviewers_see_all_loops": False,
    "show_reviewer_names": False,
    "description": "A bank for tests.\nTwo lines.\n",
    "compensation": {"currency": "USD", "base": [185000, 210000],
                     "equity_percent": [0.02, 0.04], "sign_on": [30000, 50000]},
    "panel": [{"role": "hiring_manager", "name": "Dana", "strictness": 0.5,
               "topic_weights": {"latency": 2}}],
    "topics": [
        {"slug": "latency", "title": "Latency", "questions": [
            {"slug": "budget", "prompt": "What latency budget would you set?",
             "verbatim": True, "difficulty": "senior", "time_limit_seconds": 600,
             "rubric": [
                 {"key": "headroom", "label": "Headroom", "kind": "concept", "weight": 2,
                  "phrases": ["headroom"]},
                 {"key": "gpus", "label": "GPU count", "kind": "numeric", "weight": 3,
                  "expected": 1500, "unit": "GPUs", "tolerance_percent": 5},
                 {"key": "always-faster", "label": "Claims always faster", "kind": "pitfall",
                  "weight": 1},
             ]},
        ]},
        {"slug": "capacity", "title": "Capacity", "questions": [
            {"slug": "a100", "prompt": "How many GPUs?", "difficulty": "senior",
             "time_limit_seconds": 900},
        ]},
    ],
}


def as_yaml(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False)


def broken(mutate) -> str:
    data = copy.deepcopy(VALID_BANK)
    mutate(data)
    return as_yaml(data)


@pytest.mark.parametrize(
    ("mutate", "expected_error"),
    [
        (lambda d: d["topics"][0]["questions"][0]["rubric"][1].update(expected="lots"),
         "topics[0].questions[0].rubric[1].expected: not a number"),
        (lambda d: d["topics"][0]["questions"][0].update(colour="red"),
         "topics[0].questions[0].colour: unknown key"),
        (lambda d: d["topics"][1]["questions"][0].pop("prompt"),
         "topics[1].questions[0].prompt: required field missing"),
        (lambda d: d["topics"][1]["questions"][0].update(slug="budget"),
         "duplicate question slug 'budget'"),
        (lambda d: d["topics"][0]["questions"][0]["rubric"][0].update(weight=-1),
         "topics[0].questions[0].rubric[0].weight: input should be greater than 0"),
        (lambda d: d["topics"][0]["questions"][0]["rubric"][2].update(weight=10),
         "topics[0].questions[0].rubric: pitfall weights (10) outweigh the positive criteria (5)"),
        (lambda d: d["topics"][0]["questions"][0]["rubric"][1].pop("unit"),
         "topics[0].questions[0].rubric[1]: a numeric criterion needs unit"),
        (lambda d: d["topics"][0]["questions"][0]["rubric"][0].update(expected=3),
         "topics[0].questions[0].rubric[0]: only numeric criteria take expected"),
        (lambda d: d["compensation"].update(base=[210000, 185000]),
         "compensation.base: the low end is above the high end"),
        (lambda d: d["panel"][0].update(strictness=3),
         "panel[0].strictness: input should be less than or equal to 1"),
        (lambda d: d["topics"][0].update(slug="Not A Slug"),
         "topics[0].slug: not a valid slug"),
        (lambda d: d["topics"][0]["questions"][0].update(time_limit_seconds=5),
         "topics[0].questions[0].time_limit_seconds: input should be greater than or equal to 60"),
        (lambda d: d["panel"][0]["topic_weights"].update(nowhere=1),
         "panel persona 'hiring_manager' weighs unknown topic(s): nowhere"),
    ],
)
def test_validation_errors_name_the_path(mutate, expected_error):
    with pytest.raises(BankFileError) as caught:
        parse_bank(broken(mutate))
    assert any(expected_error in error for error in caught.value.errors), caught.value.errors


def test_every_problem_is_reported_at_once():
    def two_problems(d):
        d["topics"][0]["questions"][0]["rubric"][1]["expected"] = "lots"
        d["topics"][1]["questions"][0]["colour"] = "red"

    with pytest.raises(BankFileError) as caught:
        parse_bank(broken(two_problems))
    assert len(caught.value.errors) == 2


@pytest.mark.parametrize(
    ("content", "expected_error"),
    [
        ("", "(file): a bank file is a mapping"),
        ("- just\n- a list\n", "(file): a bank file is a mapping"),
        ("slug: [unclosed\n", "line 2"),
        (b"\xff\xfe not utf8", "(file): not UTF-8 text"),
    ],
)
def test_malformed_files_get_a_clear_message(content, expected_error):
    with pytest.raises(BankFileError) as caught:
        parse_bank(content)
    assert expected_error in caught.value.errors[0]


@pytest.mark.django_db
def test_invalid_file_writes_nothing(tmp_path):
    path = tmp_path / "bank.yaml"
    path.write_text(broken(lambda d: d["topics"][1]["questions"][0].update(colour="red")))
    with pytest.raises(CommandError, match=r"topics\[1\]\.questions\[0\]\.colour: unknown key"):
        call_command("import_bank", str(path))
    assert Bank.objects.count() == 0
    assert Question.objects.count() == 0


@pytest.mark.django_db
def test_reimport_updates_in_place_without_duplicates():
    bank_import_text(as_yaml(VALID_BANK))
    first_ids = set(Question.objects.values_list("pk", flat=True))
    changed = copy.deepcopy(VALID_BANK)
    changed["title"] = "Tiny bank, renamed"
    changed["topics"][1]["questions"][0]["prompt"] = "How many A100 GPUs?"
    bank_import_text(as_yaml(changed))
    bank_import_text(as_yaml(changed))
    assert Bank.objects.get().title == "Tiny bank, renamed"
    assert Topic.objects.count() == 2
    assert set(Question.objects.values_list("pk", flat=True)) == first_ids
    assert Question.objects.get(slug="a100").prompt == "How many A100 GPUs?"
    assert RubricCriterion.objects.count() == 3
    assert PanelPersona.objects.count() == 1


@pytest.mark.django_db
def test_rubric_version_bumps_only_when_the_rubric_changes():
    bank_import_text(as_yaml(VALID_BANK))
    bank_import_text(as_yaml(VALID_BANK))
    assert Question.objects.get(slug="budget").rubric_version == 1
    changed = copy.deepcopy(VALID_BANK)
    changed["topics"][0]["questions"][0]["rubric"][0]["phrases"].append("buffer")
    summary = bank_import_text(as_yaml(changed))
    assert Question.objects.get(slug="budget").rubric_version == 2
    assert Question.objects.get(slug="a100").rubric_version == 1
    assert summary.rubrics_changed == ["budget"]


@pytest.mark.django_db
def test_items_removed_from_the_file_are_removed():
    bank_import_text(as_yaml(VALID_BANK))
    smaller = copy.deepcopy(VALID_BANK)
    smaller["topics"].pop()
    bank_import_text(as_yaml(smaller))
    assert list(Topic.objects.values_list("slug", flat=True)) == ["latency"]
    assert not Question.objects.filter(slug="a100").exists()


@pytest.mark.django_db
def test_export_round_trips_to_an_equivalent_bank():
    bank_import_text(as_yaml(VALID_BANK))
    exported = bank_export(Bank.objects.get())
    assert parse_bank(exported) == parse_bank(as_yaml(VALID_BANK))
    # Multi-line text is written as a literal block, as people write it.
    assert "description: |\n  A bank for tests.\n  Two lines.\n" in exported


@pytest.mark.django_db
def test_dry_run_writes_nothing(tmp_path, capsys):
    path = tmp_path / "bank.yaml"
    path.write_text(as_yaml(VALID_BANK))
    call_command("import_bank", str(path), "--dry-run")
    assert "Dry run" in capsys.readouterr().out
    assert Bank.objects.count() == 0


@pytest.mark.django_db
def test_export_command_unknown_slug_is_a_clear_error():
    with pytest.raises(CommandError, match="No bank with slug 'nope'"):
        call_command("export_bank", "nope")
