"""The feedback panel's highlights: whole sentences, each naming the criteria it earned."""

from __future__ import annotations

from interviews.feedback import highlight

TEXT = "I would keep headroom for jitter. Then I would load test it. Nothing else."


def criterion(key: str, start: int, end: int, verdict: str = "made") -> dict:
    return {"key": key, "label": key.title(), "kind": "concept", "verdict": verdict,
            "evidence": [{"start": start, "end": end}]}


def test_a_word_of_evidence_highlights_its_whole_sentence():
    word = TEXT.index("headroom")
    segments = highlight(TEXT, [criterion("headroom", word, word + len("headroom"))])
    marked = [s for s in segments if s.criteria]
    assert [s.text for s in marked] == ["I would keep headroom for jitter."]
    assert marked[0].tip == "Earned: Headroom"
    assert "".join(s.text for s in segments) == TEXT  # nothing lost or duplicated


def test_missed_criteria_highlight_nothing():
    word = TEXT.index("load")
    segments = highlight(TEXT, [criterion("measure", word, word + 4, verdict="missed")])
    assert all(not s.criteria for s in segments)


def test_two_criteria_in_one_sentence_are_both_named():
    first = TEXT.index("load")
    second = TEXT.index("test")
    segments = highlight(TEXT, [criterion("load", first, first + 4),
                                criterion("verify", second, second + 4)])
    marked = [s for s in segments if s.criteria]
    assert len(marked) == 1
    assert marked[0].text == "Then I would load test it."
    assert {c["key"] for c in marked[0].criteria} == {"load", "verify"}
