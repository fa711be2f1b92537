from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand

from scoring.services import scoring_sweep


class Command(BaseCommand):
    help = "Re-enqueue answers whose scoring is stuck (the same sweep Celery beat runs)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--older-than", type=int, default=None, metavar="SECONDS",
                            help="Only answers unchanged for this long (default from settings).")

    def handle(self, *args: Any, **options: Any) -> None:
        older_than = options["older_than"]
        resent = scoring_sweep(
            older_than=timedelta(seconds=older_than) if older_than is not None else None)
        self.stdout.write(f"Re-enqueued {len(resent)} answer(s).")
