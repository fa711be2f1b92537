"""QA pass on main: the interviewer's pages word verdicts and figures as they are.

A pitfall's choices read as the candidate sees them (Avoided / Fell into it) while the stored
values stay the rubric's; the calibration bias is in rating steps, not points."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from interviews.models import Scorecard
from tests.interviews.test_preview_and_scorecard import reviewed  # noqa: F401 - fixture
from tests.interviews.test_reviews import (  # noqa: F401 - fixtures
    _known_set,
    _no_broker,
    other_interviewer,
    world,
)

pytestmark = pytest.mark.django_db


def _pitfall_block(html: str) -> str:
    return html.split("Pitfall: no bake window", 1)[1].split("</fieldset>", 1)[0]


def test_pitfall_choices_read_as_the_candidate_sees_them(client, interviewer, reviewed):  # noqa: F811
    loop, answer = reviewed
    client.force_login(interviewer)
    url = reverse("reviews:scorecard", args=[loop.public_id, 1, "initial"])
    pitfall = _pitfall_block(client.get(url).content.decode())
    labels = [x.strip() for x in re.findall(r"<input[^>]*> ([A-Z][a-z ]+)", pitfall)]
    assert labels == ["Avoided", "Fell into it"], labels
    assert 'value="missed"' in pitfall and 'value="made"' in pitfall  # stored values unchanged
    data = {f"c-{c['key']}": c["verdict"] for c in answer.score.criteria}
    data.update({"c-no-bake": "made", "rating": "2", "recommendation": "no_hire", "notes": ""})
    client.post(url, data)
    card = Scorecard.objects.get(answer=answer)
    assert card.verdicts["no-bake"] == "made"
    submitted = client.get(url).content.decode()
    assert "Pitfall: no bake window: <strong>Fell into it</strong>" in submitted
    assert "flipped from avoided" in submitted


def test_calibration_bias_is_labelled_in_rating_steps(client, world):  # noqa: F811
    _known_set(world)
    client.force_login(world["admin"])
    page = client.get(reverse("reviews:calibration")).content.decode()
    overall = page[page.index('data-testid="overall"'):page.index("</dl>")]
    assert "Scorer bias (rating steps" in overall and "(points)" not in overall
