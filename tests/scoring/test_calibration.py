"""scoring.calibration on constructed sets whose agreement is known in advance."""

from __future__ import annotations

import pytest

from scoring.calibration import agreement, calibration_report, criterion_flips

TOTALS = (20.0, 45.0, 70.0, 95.0)  # evenly spaced: linear in the rating


def row(total: float, auto_rating: int, human_rating: int, *, flips: dict[str, str] | None = None,
        bank: str = "bank-a", question: str = "q1") -> dict:
    auto = {"a": "made", "b": "missed", "c": "partly"}
    return {"bank": bank, "bank_title": bank.title(), "question": question,
            "prompt": f"Prompt {question}?", "topic": "Topic", "kind": "initial",
            "criteria": {"a": "Point A", "b": "Point B", "c": "Point C"},
            "auto_total": total, "auto_rating": auto_rating, "auto_verdicts": auto,
            "human_rating": human_rating, "human_verdicts": {**auto, **(flips or {})},
            "interviewer_id": 1}


def test_perfect_agreement_is_one_everywhere():
    rows = [row(t, r, r) for t, r in zip(TOTALS, (1, 2, 3, 4), strict=True)]
    figures = agreement(rows)
    assert figures == {"n": 4, "pearson": 1.0, "spearman": 1.0, "qwk": 1.0, "exact": 1.0,
                       "bias": 0.0}


def test_reversed_ratings_are_minus_one():
    rows = [row(t, r, 5 - r) for t, r in zip(TOTALS, (1, 2, 3, 4), strict=True)]
    figures = agreement(rows)
    assert figures["pearson"] == pytest.approx(-1.0)
    assert figures["spearman"] == pytest.approx(-1.0)
    assert figures["qwk"] == pytest.approx(-1.0)  # every rating as far off as it can be
    assert figures["exact"] == 0.0


def test_off_by_one_is_positive_but_below_one_and_shows_the_bias():
    # The scorer rates one point above the interviewer on three of four; ranks still agree.
    rows = [row(20, 2, 1), row(45, 3, 2), row(70, 4, 3), row(95, 4, 4)]
    figures = agreement(rows)
    assert figures["spearman"] == pytest.approx(1.0)
    assert 0 < figures["qwk"] < 1
    assert figures["exact"] == 0.25
    assert figures["bias"] == 0.75  # the scorer is generous


def test_too_few_or_flat_gives_no_correlation():
    assert agreement([row(20, 1, 1), row(95, 4, 4)])["pearson"] is None  # n < 3
    flat = agreement([row(50, 2, 3), row(60, 3, 3), row(70, 3, 3)])
    assert flat["pearson"] is None and flat["spearman"] is None  # no human variance
    assert flat["qwk"] is not None
    assert agreement([])["n"] == 0


def test_flips_are_counted_per_criterion_most_flipped_first():
    rows = [
        row(20, 1, 1, flips={"b": "made"}),
        row(45, 2, 2, flips={"b": "made", "a": "missed"}),
        row(70, 3, 3, flips={"b": "partly"}),
        row(95, 4, 4),
    ]
    flips = criterion_flips(rows)
    assert [(c["key"], c["flips"], c["judged"]) for c in flips] == [
        ("b", 3, 4), ("a", 1, 4), ("c", 0, 4)]
    assert flips[0]["label"] == "Point B"
    assert flips[0]["rate"] == 0.75 and flips[0]["agreement"] == 0.25
    assert flips[0]["directions"] == [("missed → made", 2), ("missed → partly", 1)]


def test_report_groups_by_bank_and_question():
    rows = [row(t, r, r) for t, r in zip(TOTALS, (1, 2, 3, 4), strict=True)]
    rows += [row(t, r, 5 - r, bank="bank-b", question="q9")
             for t, r in zip(TOTALS, (1, 2, 3, 4), strict=True)]
    report = calibration_report(rows)
    by_bank = {b["bank"]: b for b in report["by_bank"]}
    assert by_bank["bank-a"]["pearson"] == 1.0 and by_bank["bank-a"]["n"] == 4
    assert by_bank["bank-b"]["pearson"] == pytest.approx(-1.0)
    assert [(q["bank"], q["question"]) for q in report["by_question"]] == [
        ("bank-a", "q1"), ("bank-b", "q9")]
    assert report["overall"]["n"] == 8
    assert report["most_flipped"] == []  # nobody flipped a verdict
    assert len(report["pairs"]) == 8


# --- The stored, SQL-aggregated report (scoring.calibration_store) ---------------------------


def _world(monkeypatch):
    """Two interviewers reviewing loops of one bank with varied verdicts and ratings."""
    from interviews.models import Answer
    from interviews.reviews.services import scorecard_submit
    from tests.factories import UserFactory
    from tests.scoring.test_reports import build_bank, build_finished_loop

    monkeypatch.setattr("scoring.enqueue.enqueue", lambda name, object_id: True)
    bank = build_bank()
    alice = UserFactory(username="alice", interviewer=True)
    bob = UserFactory(username="bob", interviewer=True)
    qualities = ["strong", "mixed", "weak", "strong", "mixed", "weak", "mixed"]
    verdict_cycle = ["made", "missed", "partly", "contradicted"]
    for i, quality in enumerate(qualities):
        loop = build_finished_loop(UserFactory(), bank=bank, quality=quality, questions=3)
        loop.reviewers.add(alice, bob)
        answers = Answer.objects.filter(loop_question__loop=loop).order_by(
            "loop_question__position")
        for j, answer in enumerate(answers):
            reviewer = alice if (i + j) % 2 else bob
            if j == 2 and reviewer is bob:
                continue  # questions only alice scores: bob must not see their flips
            scorecard_submit(answer=answer, interviewer=reviewer,
                             verdicts={"headroom": verdict_cycle[(i + j) % 4]},
                             rating=1 + (i * 3 + j) % 4,
                             recommendation="hire" if (i + j) % 3 else "no_hire")
    return bank, alice, bob


def _same(stored: dict, computed: dict) -> None:
    assert stored["overall"] == computed["overall"]
    assert stored["by_bank"] == computed["by_bank"]
    strip = [{k: v for k, v in r.items() if k != "topic"} for r in computed["by_question"]]
    assert [{k: v for k, v in r.items() if k != "topic"} for r in stored["by_question"]] == strip
    key = lambda c: (c["bank"], c["question"], c["key"])  # noqa: E731
    assert sorted(({k: c[k] for k in ("bank", "question", "key", "judged", "flips", "rate")}
                   for c in stored["criteria"]), key=key) == sorted(
        ({k: c[k] for k in ("bank", "question", "key", "judged", "flips", "rate")}
         for c in computed["criteria"]), key=key)


@pytest.mark.django_db
def test_sql_report_matches_the_python_report_on_the_same_scorecards(monkeypatch):
    from interviews.reviews.services import scorecard_rows_for_calibration
    from scoring.calibration_store import calibration_report_for

    _world(monkeypatch)
    computed = calibration_report(scorecard_rows_for_calibration())
    stored = calibration_report_for()
    assert stored["overall"]["n"] == 17  # 7 loops x 3 questions, 4 left to alice alone
    assert stored["overall"]["pearson"] is not None and stored["overall"]["qwk"] is not None
    _same(stored, computed)


def _same_figures(stored: dict, computed: dict) -> None:
    assert stored["overall"] == computed["overall"]
    assert stored["by_bank"] == computed["by_bank"]
    assert [{k: v for k, v in r.items() if k != "topic"} for r in stored["by_question"]] == [
        {k: v for k, v in r.items() if k != "topic"} for r in computed["by_question"]]


@pytest.mark.django_db
def test_interviewer_figures_match_on_assigned_loops(monkeypatch):
    from interviews.reviews.services import scorecard_rows_for_calibration
    from scoring.calibration_store import calibration_report_for

    _, alice, bob = _world(monkeypatch)
    for viewer in (alice, bob):
        _same_figures(calibration_report_for(viewer=viewer),
                      calibration_report(scorecard_rows_for_calibration(user=viewer)))


@pytest.mark.django_db
def test_interviewer_figures_match_on_a_see_all_bank_without_their_own_loop(monkeypatch):
    """A see-all bank is read from the running cells; the viewer's own loop is taken out."""
    from interviews.models import Answer
    from interviews.reviews.services import scorecard_rows_for_calibration, scorecard_submit
    from scoring.calibration_store import calibration_report_for
    from tests.scoring.test_reports import build_finished_loop

    bank, alice, bob = _world(monkeypatch)
    bank.reviewers_see_all_loops = True
    bank.save(update_fields=["reviewers_see_all_loops"])
    bank.reviewers.add(bob)
    own = build_finished_loop(bob, bank=bank, quality="strong", questions=2)
    for answer in Answer.objects.filter(loop_question__loop=own):
        scorecard_submit(answer=answer, interviewer=alice, verdicts={"canary": "missed"},
                         rating=1, recommendation="no_hire")
    unassigned = build_finished_loop(UserFactory_(), bank=bank, quality="weak", questions=1)
    scorecard_submit(answer=Answer.objects.get(loop_question__loop=unassigned),
                     interviewer=alice, verdicts={}, rating=4, recommendation="hire")
    stored = calibration_report_for(viewer=bob)
    computed = calibration_report(scorecard_rows_for_calibration(user=bob))
    assert stored["overall"]["n"] == 17 + 1  # the unassigned loop in, bob's own two out
    _same_figures(stored, computed)


def UserFactory_():  # noqa: N802 - a factory call
    from tests.factories import UserFactory

    return UserFactory()


@pytest.mark.django_db
def test_interviewers_see_flips_only_on_questions_they_scored(monkeypatch):
    from scoring.calibration_store import calibration_report_for
    from scoring.models import CalibrationPoint

    _, alice, bob = _world(monkeypatch)
    bob_questions = set(CalibrationPoint.objects.filter(interviewer=bob)
                        .values_list("question", flat=True))
    all_questions = set(CalibrationPoint.objects.values_list("question", flat=True))
    assert bob_questions < all_questions  # some questions only alice scored

    for_bob = calibration_report_for(viewer=bob)
    assert {c["question"] for c in for_bob["criteria"]} == bob_questions
    for_admin = calibration_report_for()
    assert {c["question"] for c in for_admin["criteria"]} == all_questions


@pytest.mark.django_db
def test_calibration_page_hides_flips_of_questions_the_interviewer_did_not_score(
        client, monkeypatch):
    from django.urls import reverse

    from scoring.models import CalibrationPoint

    _, alice, bob = _world(monkeypatch)
    only_alice = (set(CalibrationPoint.objects.values_list("question", flat=True))
                  - set(CalibrationPoint.objects.filter(interviewer=bob)
                        .values_list("question", flat=True)))
    client.force_login(bob)
    response = client.get(reverse("reviews:calibration"))
    assert response.status_code == 200
    flipped_questions = {c["question"] for c in response.context["report"]["criteria"]}
    assert flipped_questions and not flipped_questions & only_alice


@pytest.mark.django_db
def test_a_score_landing_after_the_scorecard_adds_the_point(monkeypatch):
    from interviews.models import Answer
    from interviews.reviews.services import scorecard_submit
    from scoring import services
    from scoring.models import CalibrationPoint
    from tests.factories import UserFactory
    from tests.scoring.test_reports import build_finished_loop

    monkeypatch.setattr("scoring.enqueue.enqueue", lambda name, object_id: True)
    loop = build_finished_loop(UserFactory(), questions=1, unscored=(1,))
    answer = Answer.objects.get(loop_question__loop=loop)
    card = scorecard_submit(answer=answer, interviewer=UserFactory(interviewer=True),
                            verdicts={}, rating=3, recommendation="hire")
    assert not CalibrationPoint.objects.filter(scorecard=card).exists()
    services.answer_score(answer_id=answer.pk)
    point = CalibrationPoint.objects.get(scorecard=card)
    assert point.human_rating == 3
    assert point.judgements.count() >= 1


@pytest.mark.django_db
def test_qwk_from_counts_equals_qwk_on_lists():
    from scoring.calibration import qwk_from_counts
    from scoring.metrics import quadratic_weighted_kappa

    auto = [1, 2, 3, 4, 2, 3, 3, 1, 4, 2]
    human = [1, 3, 3, 4, 1, 2, 3, 2, 3, 2]
    counts: dict[tuple[int, int], int] = {}
    for pair in zip(auto, human, strict=True):
        counts[pair] = counts.get(pair, 0) + 1
    assert qwk_from_counts(counts) == pytest.approx(quadratic_weighted_kappa(auto, human))
