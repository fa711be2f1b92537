"""Bank files that pass validation can't break the site later (issue 10): finite numbers,
column limits derived from the models, nesting/size limits before parsing, duplicate keys.
Each probe case gets the same clear error from the admin upload and `import_bank`, with
nothing imported and no traceback."""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from interviews.bankfiles import MAX_DEPTH, MAX_FILE_BYTES, BankFileError, parse_bank
from interviews.models import Bank, CompensationBand, Question, RubricCriterion
from tests.interviews.test_bankfiles import VALID_BANK, as_yaml

KEY_MAX = RubricCriterion._meta.get_field("key").max_length
INT_MAX = 2**31 - 1


def mutated(mutate) -> str:
    data: dict[str, Any] = copy.deepcopy(VALID_BANK)
    mutate(data)
    return as_yaml(data)


def criterion(data: dict[str, Any], index: int = 1) -> dict[str, Any]:
    return data["topics"][0]["questions"][0]["rubric"][index]


def set_in(getter, key, value):
    def mutate(data):
        getter(data)[key] = value
    return mutate


DUPLICATE_KEYS = """slug: tiny
title: First title
role: AI Engineer
title: Second title
"""

PROBES = {
    "nan": (as_yaml(VALID_BANK).replace("expected: 1500", "expected: .nan"),
            "topics[0].questions[0].rubric[1].expected: not a finite number"),
    "inf": (as_yaml(VALID_BANK).replace("expected: 1500", "expected: .inf"),
            "topics[0].questions[0].rubric[1].expected: not a finite number"),
    "negative-inf-strictness": (
        as_yaml(VALID_BANK).replace("strictness: 0.5", "strictness: -.inf"),
        "panel[0].strictness: not a finite number"),
    "key-81-chars": (mutated(set_in(criterion, "key", "k" * (KEY_MAX + 1))),
                     f"topics[0].questions[0].rubric[1].key: longer than {KEY_MAX} characters"),
    "key-100-chars": (mutated(set_in(criterion, "key", "k" * 100)),
                      f"topics[0].questions[0].rubric[1].key: longer than {KEY_MAX} characters"),
    "version": (mutated(set_in(lambda d: d, "version", 99_999_999_999)),
                f"version: input should be less than or equal to {INT_MAX}"),
    "salary": (mutated(set_in(lambda d: d["compensation"], "base", [185_000, 2**31])),
               f"compensation.base[1]: input should be less than or equal to {INT_MAX}"),
    "nested-brackets": ("slug: tiny\nphrases: " + "[" * 3000 + "]" * 3000 + "\n",
                        f"nested more than {MAX_DEPTH} levels deep"),
    "duplicate-keys": (DUPLICATE_KEYS,
                       "line 4, column 1: duplicate key 'title' (first on line 2)"),
    "two-megabytes": ("slug: tiny\nx: [" + "1," * 1_000_000 + "1]\n",
                      f"(file): larger than the {MAX_FILE_BYTES // 1000:,} KB limit"),
    "a-million-items-under-the-size-limit": (
        "slug: tiny\nx: [" + "1," * (MAX_FILE_BYTES // 2 - 20) + "1]\n",
        "line 2: more than 50,000 items"),
    "alias-bomb": ("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a]\n",
                   "line 2, column 8: YAML aliases (*name) are not supported"),
    "nul-character": (as_yaml(VALID_BANK).replace("title: Tiny bank", 'title: "Tiny\\0bank"'),
                      "title: contains a NUL character"),
}


@pytest.mark.parametrize(("content", "expected"), PROBES.values(), ids=PROBES.keys())
def test_probe_case_is_a_validation_error(content, expected):
    started = time.perf_counter()
    with pytest.raises(BankFileError) as error:
        parse_bank(content.encode())
    assert any(expected in message for message in error.value.errors), error.value.errors
    assert time.perf_counter() - started < 2  # refused before any expensive work


@pytest.mark.django_db
@pytest.mark.parametrize(("content", "expected"), PROBES.values(), ids=PROBES.keys())
def test_import_bank_reports_it_and_imports_nothing(tmp_path, content, expected):
    path = tmp_path / "bank.yaml"
    path.write_text(content)
    with pytest.raises(CommandError) as error:
        call_command("import_bank", str(path), verbosity=0)
    assert "nothing was imported" in str(error.value) and expected in str(error.value)
    assert not Bank.objects.exists() and not Question.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("content", "expected"), PROBES.values(), ids=PROBES.keys())
def test_admin_upload_reports_it_and_imports_nothing(client, admin_user, content, expected):
    client.force_login(admin_user)
    upload = SimpleUploadedFile("bank.yaml", content.encode(), content_type="application/yaml")
    response = client.post(reverse("admin:interviews_bank_import"), {"file": upload})
    assert response.status_code == 200
    html = response.content.decode()
    assert expected.replace("'", "&#x27;") in html
    assert not Bank.objects.exists() and not CompensationBand.objects.exists()


def test_limits_come_from_the_model_columns():
    """The file format can't drift from the database: each limit is the column's."""
    data = copy.deepcopy(VALID_BANK)
    criterion(data)["key"] = "k" * KEY_MAX
    data["version"] = INT_MAX
    data["compensation"]["base"] = [0, INT_MAX]
    data["topics"][0]["questions"][0]["when"] = "w" * Question._meta.get_field("when").max_length
    parse_bank(as_yaml(data))  # exactly at every limit: valid


@pytest.mark.django_db
def test_values_at_the_column_limits_import(tmp_path):
    data = copy.deepcopy(VALID_BANK)
    criterion(data)["key"] = "k" * KEY_MAX
    data["version"] = INT_MAX
    data["compensation"]["base"] = [0, INT_MAX]
    path = tmp_path / "bank.yaml"
    path.write_text(as_yaml(data))
    call_command("import_bank", str(path), verbosity=0)
    assert Bank.objects.get().version == INT_MAX
    assert RubricCriterion.objects.filter(key="k" * KEY_MAX).exists()


def test_the_bundled_bank_is_well_inside_the_limits():
    from django.conf import settings

    path = settings.MOCKLOOP_BUNDLED_BANKS_DIR / "inference-serving-ai-engineers.yaml"
    assert path.stat().st_size * 3 < MAX_FILE_BYTES
    parse_bank(path.read_bytes())


def test_duplicate_keys_deep_in_the_file_name_their_line():
    text = as_yaml(VALID_BANK).replace("- key: headroom\n",
                                       "- key: headroom\n      key: headroom-again\n", 1)
    assert text.count("headroom-again") == 1
    with pytest.raises(BankFileError) as error:
        parse_bank(text)
    line = text.splitlines().index(next(row for row in text.splitlines()
                                        if "headroom-again" in row)) + 1
    assert error.value.errors == [
        f"line {line}, column 7: duplicate key 'key' (first on line {line - 1})"]


def test_yaml_dump_of_the_valid_bank_has_no_aliases():
    assert "*" not in yaml.safe_dump(VALID_BANK)
