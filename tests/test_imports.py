"""The scoring modules depend on each other one way: tasks -> debriefs/reports/services ->
enqueue. Nothing but tasks imports scoring.tasks (tasks are sent by name)."""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings

SCORING = Path(settings.BASE_DIR) / "scoring"


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            found.add(base)
            found.update(f"{base}.{alias.name}" if node.module is None else base
                         for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_only_tasks_modules_import_scoring_tasks():
    apps = [SCORING.parent / name for name in ("config", "interviews", "scoring", "ops")]
    offenders = [str(path.relative_to(SCORING.parent))
                 for app in apps for path in app.rglob("*.py")
                 if path.name != "tasks.py"
                 and imported_modules(path) & {".tasks", "scoring.tasks"}]
    assert offenders == []


def test_services_do_not_import_reports_or_debriefs():
    imports = imported_modules(SCORING / "services.py")
    assert not imports & {".reports", ".debriefs", "scoring.reports", ".tasks"}
    assert ".enqueue" in imports
