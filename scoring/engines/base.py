"""The engine interface: plain Python, no ORM, no HTTP. Text in, verdicts and evidence out.

An engine is any object with `name`, `version` and `score(question, answer) -> ScoreOutcome`.
Engines register themselves with `@register`; settings.MOCKLOOP_SCORING_ENGINE picks one by name.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

Verdict = Literal["made", "partly", "missed", "contradicted"]
CriterionKind = Literal["concept", "numeric", "pitfall"]


@dataclass(frozen=True)
class CriterionSpec:
    key: str
    label: str
    kind: CriterionKind = "concept"
    weight: float = 1.0
    checks: str = ""
    phrases: tuple[str, ...] = ()
    expected_value: float | None = None
    unit: str = ""
    tolerance_percent: float | None = None
    feedback_hit: str = ""
    feedback_miss: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CriterionSpec:
        return cls(
            key=data["key"],
            label=data["label"],
            kind=data.get("kind", "concept"),
            weight=float(data.get("weight", 1.0)),
            checks=data.get("checks", ""),
            phrases=tuple(data.get("phrases", ())),
            expected_value=data.get("expected_value"),
            unit=data.get("unit", ""),
            tolerance_percent=data.get("tolerance_percent"),
            feedback_hit=data.get("feedback_hit", ""),
            feedback_miss=data.get("feedback_miss", ""),
        )


@dataclass(frozen=True)
class QuestionSpec:
    prompt: str
    model_answer: str = ""
    criteria: tuple[CriterionSpec, ...] = ()
    pushback: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    scenario: str = ""
    rubric_version: int = 1

    @property
    def reference_only(self) -> bool:
        """A question with no rubric yet is scored against its model answer alone."""
        return not self.criteria

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> QuestionSpec:
        return cls(
            prompt=data["prompt"],
            model_answer=data.get("model_answer", ""),
            criteria=tuple(CriterionSpec.from_dict(c) for c in data.get("criteria", ())),
            pushback=tuple(data.get("pushback", ())),
            facts=tuple(data.get("facts", ())),
            scenario=data.get("scenario", ""),
            rubric_version=int(data.get("rubric_version", 1)),
        )


@dataclass
class Span:
    start: int
    end: int


@dataclass
class NumberCheck:
    """A number the answer gave for a numeric criterion, beside the expected one."""

    criterion_key: str
    expected_value: float
    unit: str
    tolerance_percent: float
    found_value: float | None  # None: the answer gave no usable number
    found_text: str = ""
    span: Span | None = None
    within_tolerance: bool = False
    method_credit: bool = False  # right method, whatever the arithmetic
    worked_calculation: str = ""  # the correct calculation, shown beside the candidate's
    # The result stated in another of the criterion's own forms ("14x" for "1,125 GPUs"): right,
    # though found_value is not in the criterion's unit.
    another_form: bool = False


@dataclass
class CriterionVerdict:
    key: str
    label: str
    kind: CriterionKind
    verdict: Verdict
    weight: float
    credit: float  # 0..1 share of this criterion's weight that was earned (pitfalls: 0 or 1 hit)
    evidence: list[Span] = field(default_factory=list)
    feedback: str = ""


@dataclass
class ScoreOutcome:
    total: float  # 0-100
    rating: int  # 1-4 interview scale
    criteria: list[CriterionVerdict]
    numbers: list[NumberCheck]
    feedback: dict[str, Any]  # {"strengths": [...], "misses": [...], "pushback": str|None,
    #                            "calculations": [...], "summary": str}
    engine: str
    engine_version: str
    rubric_version: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Engine(Protocol):
    name: str
    version: str

    def score(self, question: QuestionSpec, answer: str) -> ScoreOutcome: ...


_REGISTRY: dict[str, type] = {}


def register(cls: type) -> type:
    _REGISTRY[cls.name] = cls
    return cls


_INSTANCES: dict[str, Engine] = {}


def get_engine(name: str) -> Engine:
    """One instance per process, so any model or index an engine loads is loaded once."""
    if name not in _INSTANCES:
        _import_builtin_engines()
        try:
            engine_class = _REGISTRY[name]
        except KeyError:
            known = ", ".join(sorted(_REGISTRY)) or "none"
            raise LookupError(f"Unknown scoring engine {name!r}; known engines: {known}") from None
        _INSTANCES[name] = engine_class()
    return _INSTANCES[name]


def available_engines() -> list[str]:
    _import_builtin_engines()
    return sorted(_REGISTRY)


# Where ratings 2, 3 and 4 start on the 0-100 scale (scoring/engines/rating.py says how they
# were chosen).
RATING_BAND_EDGES = (35, 65, 90)


def rating_for_total(total: float) -> int:
    """Map 0-100 onto the 1-4 interview scale."""
    return 1 + sum(total >= edge for edge in RATING_BAND_EDGES)


def load_engine_modules(modules: tuple[str, ...] | list[str]) -> None:
    """Import further engine modules (each registers itself with @register)."""
    from importlib import import_module

    for module in modules:
        import_module(module)


def _import_builtin_engines() -> None:
    from importlib import import_module

    for module in ("scoring.engines.rubric",):
        try:
            import_module(module)
        except ModuleNotFoundError as error:
            if error.name != module:
                raise
