"""Bank files: parse and validate a YAML bank, import it in one transaction, export it back.

The schema lives in pydantic models so every error carries the path to the offending field
(`topics[2].questions[0].rubric[3].expected: not a number`). See banks/FORMAT.md.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import yaml
from django.db import DataError, IntegrityError, models, transaction
from django.db.backends.base.operations import BaseDatabaseOperations
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo

from .models import Bank, CompensationBand, PanelPersona, Question, RubricCriterion, Topic

# Checked before the YAML is turned into objects, so a hostile file costs little: the bundled
# bank is 0.25 MB, nesting depth 8 and about 6,600 YAML nodes.
MAX_FILE_BYTES = 1_000_000
MAX_DEPTH = 20
MAX_NODES = 50_000

SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
Text = Annotated[str, Field(max_length=20_000)]


def column(model: type[models.Model], name: str, **extra: Any) -> FieldInfo:
    """The limits of a model column as a pydantic constraint, so the file format and the
    database cannot drift apart (a CharField's max_length, an integer field's range)."""
    model_field = model._meta.get_field(name)
    limits: dict[str, Any] = {}
    if getattr(model_field, "max_length", None):
        limits["max_length"] = model_field.max_length
    # PostgreSQL's ranges (the strictest supported backend; SQLite would take more).
    low, high = BaseDatabaseOperations.integer_field_ranges.get(
        model_field.get_internal_type(), (None, None))
    if low is not None:
        limits["ge"] = low
    if high is not None:
        limits["le"] = high
    for key, value in extra.items():  # the format may be stricter than the column
        if key in {"max_length", "le"} and key in limits:
            value = min(value, limits[key])
        elif key == "ge" and key in limits:
            value = max(value, limits[key])
        limits[key] = value
    return Field(**limits)


def slug(model: type[models.Model], name: str = "slug") -> Any:
    return Annotated[str, column(model, name, pattern=SLUG_PATTERN)]


class BankFileError(Exception):
    """The file is not a valid bank; `errors` lists every problem with its path."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("\n".join(errors))


class _Strict(BaseModel):
    # NaN and infinities parse as YAML floats but PostgreSQL refuses them in JSON snapshots.
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False, allow_inf_nan=False)


class MistakeIn(_Strict):
    bad: Text
    good: Text


class FaqIn(_Strict):
    question: Text
    answer: Text


class CriterionIn(_Strict):
    key: slug(RubricCriterion, "key")
    label: Annotated[str, column(RubricCriterion, "label", min_length=1)]
    kind: Literal["concept", "numeric", "pitfall"] = "concept"
    weight: Annotated[float, Field(gt=0, le=100)]
    checks: Text = ""
    phrases: list[Annotated[str, Field(min_length=1, max_length=200)]] = []
    expected: float | None = None
    unit: Annotated[str, column(RubricCriterion, "unit")] = ""
    tolerance_percent: Annotated[float, Field(ge=0, le=100)] | None = None
    feedback_hit: Text = ""
    feedback_miss: Text = ""

    @model_validator(mode="after")
    def numeric_fields_match_kind(self) -> CriterionIn:
        numeric_fields = {"expected": self.expected, "unit": self.unit or None,
                          "tolerance_percent": self.tolerance_percent}
        if self.kind == "numeric":
            missing = [name for name, value in numeric_fields.items() if value is None]
            if missing:
                raise ValueError(f"a numeric criterion needs {', '.join(missing)}")
        else:
            present = [name for name, value in numeric_fields.items() if value is not None]
            if present:
                raise ValueError(f"only numeric criteria take {', '.join(present)}")
        return self


class QuestionIn(_Strict):
    slug: slug(Question)
    prompt: Annotated[str, Field(min_length=1, max_length=2000)]
    verbatim: bool = False
    company: Annotated[str, column(Question, "company")] = ""
    team: Annotated[str, column(Question, "team")] = ""
    when: Annotated[str, column(Question, "when")] = ""
    scenario: Text = ""
    constraints: list[Text] = []
    difficulty: Literal["entry", "mid", "senior", "staff"] = "senior"
    time_limit_seconds: Annotated[int, column(Question, "time_limit_seconds", ge=60,
                                              le=7200)] = 600
    model_answer: Text = ""
    pushback: list[Text] = []
    mistakes: list[MistakeIn] = []
    facts: list[Text] = []
    rubric: list[CriterionIn] = []

    @field_validator("rubric")
    @classmethod
    def rubric_makes_sense(cls, rubric: list[CriterionIn]) -> list[CriterionIn]:
        _check_unique([c.key for c in rubric], "criterion key")
        positive = sum(c.weight for c in rubric if c.kind != "pitfall")
        pitfalls = sum(c.weight for c in rubric if c.kind == "pitfall")
        if rubric and positive == 0:
            raise ValueError("a rubric needs at least one criterion that earns points")
        if pitfalls > positive:
            raise ValueError(
                f"pitfall weights ({pitfalls:g}) outweigh the positive criteria ({positive:g})")
        return rubric


class TopicIn(_Strict):
    slug: slug(Topic)
    title: Annotated[str, column(Topic, "title", min_length=1)]
    description: Text = ""
    questions: list[QuestionIn] = []


class PersonaIn(_Strict):
    role: Literal["hiring_manager", "bar_raiser", "tech_lead", "sre", "peer"]
    name: Annotated[str, column(PanelPersona, "name", min_length=1)]
    weighs_most: Text = ""
    strictness: Annotated[float, Field(ge=0, le=1)] = 0.5
    topic_weights: dict[str, Annotated[float, Field(ge=0, le=10)]] = {}




class CompensationIn(_Strict):
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")] = "USD"
    base: tuple[Annotated[int, column(CompensationBand, "base_min")],
                Annotated[int, column(CompensationBand, "base_max")]]
    equity_percent: tuple[Annotated[float, Field(ge=0, le=100)],
                          Annotated[float, Field(ge=0, le=100)]]
    sign_on: tuple[Annotated[int, column(CompensationBand, "sign_on_min")],
                   Annotated[int, column(CompensationBand, "sign_on_max")]]
    source: Text = ""

    @field_validator("base", "equity_percent", "sign_on")
    @classmethod
    def low_not_above_high(cls, pair: tuple[float, float]) -> tuple[float, float]:
        if pair[0] > pair[1]:
            raise ValueError("the low end is above the high end")
        return pair


class BankIn(_Strict):
    slug: slug(Bank)
    title: Annotated[str, column(Bank, "title", min_length=1)]
    role: Annotated[str, column(Bank, "role", min_length=1)]
    version: Annotated[int, column(Bank, "version", ge=1)] = 1
    published: bool = False
    decision_rule: Literal["majority", "bar_raiser_veto"] = "majority"
    reviewers_see_all_loops: bool = False
    show_reviewer_names: bool = False
    description: Text = ""
    assumptions: Text = ""
    checklist: list[Text] = []
    faq: list[FaqIn] = []
    compensation: CompensationIn | None = None
    panel: list[PersonaIn] = []
    topics: list[TopicIn] = []

    @model_validator(mode="after")
    def references_are_consistent(self) -> BankIn:
        _check_unique([t.slug for t in self.topics], "topic slug")
        _check_unique([q.slug for t in self.topics for q in t.questions], "question slug")
        _check_unique([p.role for p in self.panel], "panel role")
        topic_slugs = {t.slug for t in self.topics}
        for persona in self.panel:
            unknown = sorted(set(persona.topic_weights) - topic_slugs)
            if unknown:
                raise ValueError(
                    f"panel persona {persona.role!r} weighs unknown topic(s): {', '.join(unknown)}")
        return self


def _check_unique(values: list[str], what: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"duplicate {what} {value!r}")
        seen.add(value)


# --- Parsing -----------------------------------------------------------------------------

_MESSAGES = {
    "missing": "required field missing",
    "extra_forbidden": "unknown key",
    "float_parsing": "not a number",
    "float_type": "not a number",
    "int_parsing": "not a whole number",
    "int_type": "not a whole number",
    "int_from_float": "not a whole number",
    "finite_number": "not a finite number",
    "bool_type": "not true or false",
    "bool_parsing": "not true or false",
    "string_type": "not text",
    "list_type": "not a list",
    "dict_type": "not a mapping",
    "model_type": "not a mapping",
    "tuple_type": "not a [low, high] pair",
    "string_pattern_mismatch": "not a valid slug (lowercase letters, digits and hyphens)",
}


def _format_location(location: tuple[Any, ...]) -> str:
    path = ""
    for part in location:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part in {"function-after", "function-before"} or str(part).startswith("function-"):
            continue
        else:
            path += f".{part}" if path else str(part)
    return path or "(file)"


def _format_error(error: dict[str, Any]) -> str:
    location = _format_location(tuple(error["loc"]))
    kind = error["type"]
    if kind == "string_pattern_mismatch" and location.endswith("currency"):
        message = "not a three-letter currency code"
    elif kind in _MESSAGES:
        message = _MESSAGES[kind]
    elif kind == "string_too_long":
        message = f"longer than {error['ctx']['max_length']:,} characters"
    elif kind == "value_error":
        message = str(error["msg"]).removeprefix("Value error, ")
    else:
        message = error["msg"][0].lower() + error["msg"][1:]
    return f"{location}: {message}"


_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _BankLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """YAML's safe loader, refusing duplicate keys (YAML would silently keep the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if isinstance(key, str | int | float | bool) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first on line {seen[key]})",
                    key_node.start_mark)
            if isinstance(key, str | int | float | bool):
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


_BankLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                            _BankLoader.construct_mapping)


def _check_shape(text: str) -> None:
    """Depth and size from the event stream, before any object is built (building recurses,
    so 3,000 nested brackets would be a RecursionError; a million-item list takes seconds)."""
    depth = nodes = 0
    for event in yaml.parse(text, Loader=_BaseLoader):
        if isinstance(event, yaml.AliasEvent):
            # An alias repeats a subtree without its cost in bytes ("billion laughs").
            mark = event.start_mark
            raise BankFileError([f"line {mark.line + 1}, column {mark.column + 1}: YAML "
                                 "aliases (*name) are not supported in bank files"])
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                raise BankFileError([f"line {mark.line + 1}, column {mark.column + 1}: nested "
                                     f"more than {MAX_DEPTH} levels deep"])
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        if isinstance(event, yaml.NodeEvent):
            nodes += 1
            if nodes > MAX_NODES:
                mark = event.start_mark
                raise BankFileError([f"line {mark.line + 1}: more than {MAX_NODES:,} items; "
                                     "a bank file is far smaller (split it into several banks)"])


def _check_text(value: Any, path: str = "") -> list[str]:
    """PostgreSQL stores no NUL character, in text or in JSON."""
    if isinstance(value, str):
        return [f"{path or '(file)'}: contains a NUL character"] if "\x00" in value else []
    if isinstance(value, dict):
        return [error for key, item in value.items()
                for error in _check_text(key, path) + _check_text(
                    item, f"{path}.{key}" if path else str(key))]
    if isinstance(value, list):
        return [error for i, item in enumerate(value)
                for error in _check_text(item, f"{path}[{i}]")]
    return []


def _too_large() -> BankFileError:
    return BankFileError([f"(file): larger than the {MAX_FILE_BYTES // 1000:,} KB limit for a "
                          "bank file"])


def parse_bank(text: str | bytes) -> BankIn:
    """Parse and validate a whole bank file; raise BankFileError listing every problem."""
    if isinstance(text, bytes):
        if len(text) > MAX_FILE_BYTES:
            raise _too_large()
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise BankFileError(["(file): not UTF-8 text"]) from None
    if len(text.encode("utf-8")) > MAX_FILE_BYTES:
        raise _too_large()
    try:
        _check_shape(text)
        raw = yaml.load(text, Loader=_BankLoader)  # noqa: S506 - a safe loader, subclassed
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(file)"
        problem = getattr(error, "problem", None) or "not valid YAML"
        if "nesting depth" in problem:  # libyaml looks ahead and stops at its own limit
            problem = f"nested more than {MAX_DEPTH} levels deep"
        raise BankFileError([f"{where}: {problem}"]) from None
    if not isinstance(raw, dict):
        raise BankFileError(["(file): a bank file is a mapping with slug, title, role, topics"])
    errors = _check_text(raw)
    try:
        bank = BankIn.model_validate(raw)
    except ValidationError as error:
        errors += [_format_error(e) for e in error.errors()]
    if errors:
        raise BankFileError(errors)
    return bank


# --- Import --------------------------------------------------------------------------------


@dataclass
class ImportSummary:
    bank: Bank
    created: bool
    topics: int = 0
    questions: int = 0
    criteria: int = 0
    rubrics_changed: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        verb = "Created" if self.created else "Updated"
        text = (f"{verb} bank {self.bank.slug!r}: {self.topics} topics, {self.questions} "
                f"questions, {self.criteria} rubric criteria.")
        if self.rubrics_changed and not self.created:
            text += f" New rubric version for: {', '.join(self.rubrics_changed)}."
        return text


def _criterion_fields(criterion: CriterionIn, order: int) -> dict[str, Any]:
    return {
        "order": order,
        "label": criterion.label,
        "kind": criterion.kind,
        "weight": criterion.weight,
        "checks": criterion.checks,
        "phrases": list(criterion.phrases),
        "expected_value": criterion.expected,
        "unit": criterion.unit,
        "tolerance_percent": criterion.tolerance_percent,
        "feedback_hit": criterion.feedback_hit,
        "feedback_miss": criterion.feedback_miss,
    }


def _rubric_fingerprint(rows: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True, default=str).encode()).hexdigest()


def _existing_rubric(question: Question) -> list[dict[str, Any]]:
    return [
        {"key": c.key, **{k: getattr(c, k) for k in _CRITERION_MODEL_FIELDS}}
        for c in question.criteria.all()
    ]


_CRITERION_MODEL_FIELDS = ("order", "label", "kind", "weight", "checks", "phrases",
                           "expected_value", "unit", "tolerance_percent", "feedback_hit",
                           "feedback_miss")


@transaction.atomic
def bank_import(*, data: BankIn) -> ImportSummary:
    """Create or update a bank by slug, in place: nothing is duplicated, and items no longer in
    the file are removed (loops keep their own snapshots)."""
    bank, created = Bank.objects.select_for_update().get_or_create(
        slug=data.slug,
        defaults={"title": data.title, "role": data.role},
    )
    bank.title = data.title
    bank.role = data.role
    bank.version = data.version
    bank.is_published = data.published
    bank.decision_rule = data.decision_rule
    bank.reviewers_see_all_loops = data.reviewers_see_all_loops
    bank.show_reviewer_names = data.show_reviewer_names
    bank.description = data.description
    bank.assumptions = data.assumptions
    bank.checklist = list(data.checklist)
    bank.faq = [item.model_dump() for item in data.faq]
    bank.save()
    summary = ImportSummary(bank=bank, created=created)

    if data.compensation is None:
        CompensationBand.objects.filter(bank=bank).delete()
    else:
        band = data.compensation
        CompensationBand.objects.update_or_create(bank=bank, defaults={
            "currency": band.currency,
            "base_min": band.base[0], "base_max": band.base[1],
            "equity_min_percent": band.equity_percent[0],
            "equity_max_percent": band.equity_percent[1],
            "sign_on_min": band.sign_on[0], "sign_on_max": band.sign_on[1],
            "source_note": band.source,
        })

    bank.personas.exclude(role__in=[p.role for p in data.panel]).delete()
    for persona in data.panel:
        PanelPersona.objects.update_or_create(bank=bank, role=persona.role, defaults={
            "name": persona.name, "weighs_most": persona.weighs_most,
            "strictness": persona.strictness, "topic_weights": dict(persona.topic_weights),
        })

    existing_topics = {t.slug: t for t in bank.topics.all()}
    existing_questions = {
        q.slug: q for q in Question.objects.filter(topic__bank=bank).prefetch_related("criteria")
    }
    kept_question_ids: list[int] = []
    for topic_order, topic_in in enumerate(data.topics):
        topic = existing_topics.get(topic_in.slug) or Topic(bank=bank, slug=topic_in.slug)
        topic.title = topic_in.title
        topic.description = topic_in.description
        topic.order = topic_order
        topic.save()
        summary.topics += 1
        for question_order, question_in in enumerate(topic_in.questions):
            question = existing_questions.get(question_in.slug) or Question(slug=question_in.slug)
            _question_update(question, question_in, topic=topic, order=question_order,
                             summary=summary)
            kept_question_ids.append(question.pk)
    Question.objects.filter(topic__bank=bank).exclude(pk__in=kept_question_ids).delete()
    bank.topics.exclude(slug__in=[t.slug for t in data.topics]).delete()
    return summary


def _question_update(question: Question, data: QuestionIn, *, topic: Topic, order: int,
                     summary: ImportSummary) -> None:
    is_new = question.pk is None
    old_rubric = [] if is_new else _existing_rubric(question)
    question.topic = topic
    question.order = order
    question.prompt = data.prompt
    question.is_verbatim = data.verbatim
    question.company = data.company
    question.team = data.team
    question.when = data.when
    question.scenario = data.scenario
    question.constraints = list(data.constraints)
    question.difficulty = data.difficulty
    question.time_limit_seconds = data.time_limit_seconds
    question.model_answer = data.model_answer
    question.pushback = list(data.pushback)
    question.mistakes = [m.model_dump() for m in data.mistakes]
    question.facts = list(data.facts)
    new_rubric = [{"key": c.key, **_criterion_fields(c, i)} for i, c in enumerate(data.rubric)]
    rubric_changed = _rubric_fingerprint(old_rubric) != _rubric_fingerprint(new_rubric)
    if rubric_changed and not is_new:
        # Loops snapshot the rubric they started with; the version says which one that was.
        question.rubric_version += 1
        summary.rubrics_changed.append(question.slug)
    question.save()
    summary.questions += 1
    summary.criteria += len(data.rubric)
    if rubric_changed:
        question.criteria.all().delete()
        RubricCriterion.objects.bulk_create(
            RubricCriterion(question=question, key=c.key, **_criterion_fields(c, i))
            for i, c in enumerate(data.rubric)
        )


def bank_import_text(text: str | bytes, *, dry_run: bool = False) -> ImportSummary:
    """Validate the whole file first; write only if every part of it is valid. The admin
    upload and `import_bank` both come through here, so they report the same errors."""
    data = parse_bank(text)
    try:
        with transaction.atomic():
            summary = bank_import(data=data)
            if dry_run:
                transaction.set_rollback(True)
    except (DataError, IntegrityError) as error:
        # Validation mirrors the columns, so this is a bug in the mirror: still no traceback,
        # and the transaction has written nothing.
        raise BankFileError([f"(file): the database refused a value ({error})"]) from None
    return summary


# --- Export --------------------------------------------------------------------------------


class _BankDumper(yaml.SafeDumper):
    """Block style, keys in schema order, multi-line text as `|` blocks."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> Any:
        # Indent list items under their key, as people write YAML by hand.
        return super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_BankDumper.add_representer(str, _represent_str)


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def bank_to_dict(bank: Bank) -> dict[str, Any]:
    """The bank as plain data in the file's canonical order, omitting empty optional fields."""
    data: dict[str, Any] = {
        "slug": bank.slug,
        "title": bank.title,
        "role": bank.role,
        "version": bank.version,
        "published": bank.is_published,
        "decision_rule": bank.decision_rule,
        "reviewers_see_all_loops": bank.reviewers_see_all_loops,
        "show_reviewer_names": bank.show_reviewer_names,
        "description": bank.description,
        "assumptions": bank.assumptions,
        "checklist": list(bank.checklist),
        "faq": [{"question": f["question"], "answer": f["answer"]} for f in bank.faq],
    }
    band = CompensationBand.objects.filter(bank=bank).first()
    if band is not None:
        data["compensation"] = {
            "currency": band.currency,
            "base": [band.base_min, band.base_max],
            "equity_percent": [_number(band.equity_min_percent),
                               _number(band.equity_max_percent)],
            "sign_on": [band.sign_on_min, band.sign_on_max],
            "source": band.source_note,
        }
    topics = list(bank.topics.prefetch_related("questions__criteria").order_by("order", "id"))
    # PostgreSQL's jsonb does not keep key order, so weights are written in topic order.
    topic_order = {topic.slug: index for index, topic in enumerate(topics)}
    data["panel"] = [
        {"role": p.role, "name": p.name, "weighs_most": p.weighs_most,
         "strictness": _number(p.strictness),
         "topic_weights": {
             k: _number(v) for k, v in sorted(p.topic_weights.items(),
                                              key=lambda item: topic_order.get(item[0], 0))}}
        for p in bank.personas.order_by("id")
    ]
    data["topics"] = [
        {"slug": t.slug, "title": t.title, "description": t.description,
         "questions": [_question_to_dict(q) for q in t.questions.all()]}
        for t in topics
    ]
    return _drop_empty(data, keep={"slug", "title", "role", "version", "published", "topics",
                                   "prompt", "key", "label", "weight", "questions", "base",
                                   "equity_percent", "sign_on", "decision_rule",
                                   "reviewers_see_all_loops", "show_reviewer_names"})


def _question_to_dict(question: Question) -> dict[str, Any]:
    return {
        "slug": question.slug,
        "prompt": question.prompt,
        "verbatim": question.is_verbatim,
        "company": question.company,
        "team": question.team,
        "when": question.when,
        "scenario": question.scenario,
        "constraints": list(question.constraints),
        "difficulty": question.difficulty,
        "time_limit_seconds": question.time_limit_seconds,
        "model_answer": question.model_answer,
        "pushback": list(question.pushback),
        "mistakes": [{"bad": m["bad"], "good": m["good"]} for m in question.mistakes],
        "facts": list(question.facts),
        "rubric": [_criterion_to_dict(c) for c in question.criteria.all()],
    }


def _criterion_to_dict(criterion: RubricCriterion) -> dict[str, Any]:
    data: dict[str, Any] = {
        "key": criterion.key,
        "label": criterion.label,
        "kind": criterion.kind,
        "weight": _number(criterion.weight),
        "checks": criterion.checks,
        "phrases": list(criterion.phrases),
    }
    if criterion.kind == RubricCriterion.Kind.NUMERIC:
        data["expected"] = _number(criterion.expected_value)
        data["unit"] = criterion.unit
        data["tolerance_percent"] = _number(criterion.tolerance_percent)
    data["feedback_hit"] = criterion.feedback_hit
    data["feedback_miss"] = criterion.feedback_miss
    return data


def _drop_empty(value: Any, *, keep: set[str]) -> Any:
    if isinstance(value, dict):
        return {
            k: _drop_empty(v, keep=keep) for k, v in value.items()
            if k in keep or v not in ("", [], {}, None)
        }
    if isinstance(value, list):
        return [_drop_empty(v, keep=keep) for v in value]
    return value


def bank_export(bank: Bank) -> str:
    return yaml.dump(bank_to_dict(bank), Dumper=_BankDumper, sort_keys=False,
                     allow_unicode=True, width=100, default_flow_style=False)
