from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from interviews.bankfiles import bank_export
from interviews.models import Bank


class Command(BaseCommand):
    help = "Write a bank in the bank-file format (to stdout, or to --output)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("slug", help="The bank's slug.")
        parser.add_argument("--output", "-o", type=Path, help="Write to this file.")

    def handle(self, *args: Any, **options: Any) -> None:
        bank = Bank.objects.filter(slug=options["slug"]).first()
        if bank is None:
            known = ", ".join(Bank.objects.values_list("slug", flat=True)) or "none"
            raise CommandError(f"No bank with slug {options['slug']!r} (known: {known}).")
        text = bank_export(bank)
        if options["output"]:
            options["output"].write_text(text, encoding="utf-8")
            self.stdout.write(self.style.SUCCESS(f"Wrote {options['output']}"))
        else:
            self.stdout.write(text, ending="")
