from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from scoring.calibration_store import calibration_rebuild


class Command(BaseCommand):
    help = "Rewrite the calibration points from every scored scorecard (repair or upgrade)."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"Wrote {calibration_rebuild()} calibration point(s).")
