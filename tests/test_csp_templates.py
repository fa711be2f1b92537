"""No template needs 'unsafe-inline': no inline <script>, style= attribute, <style> or on*=."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

TEMPLATES = sorted(Path(settings.BASE_DIR, "templates").rglob("*.html"))
INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I), "inline <script>"),
    (re.compile(r"<style\b", re.I), "<style> element"),
    (re.compile(r"\sstyle\s*=", re.I), "style= attribute"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "on*= handler"),
    (re.compile(r"javascript:", re.I), "javascript: URL"),
]


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: p.name)
def test_template_has_nothing_inline(template: Path):
    text = template.read_text()
    found = [label for pattern, label in INLINE if pattern.search(text)]
    assert not found, f"{template}: {found}"


def test_every_response_carries_the_policy(client):
    policy = client.get("/accounts/login/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'"


def test_htmx_is_configured_not_to_eval(client):
    html = client.get("/accounts/login/").content.decode()
    assert ('<meta name="htmx-config" content=\'{"allowEval": false, '
            '"includeIndicatorStyles": false}\'>') in html
