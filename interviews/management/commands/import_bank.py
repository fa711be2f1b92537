from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from interviews.bankfiles import BankFileError, bank_import, parse_bank


class Command(BaseCommand):
    help = "Validate a bank file and import it (all or nothing); re-import updates by slug."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path, help="Path to a bank YAML file.")
        parser.add_argument("--dry-run", action="store_true",
                            help="Validate and report, but write nothing.")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        try:
            content = path.read_bytes()
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror}") from None
        try:
            data = parse_bank(content)
        except BankFileError as error:
            raise CommandError(
                f"{path} is not a valid bank file ({len(error.errors)} problem(s)); nothing was "
                "imported:\n  " + "\n  ".join(error.errors)) from None
        with transaction.atomic():
            summary = bank_import(data=data)
            if options["dry_run"]:
                transaction.set_rollback(True)
        if options["verbosity"] >= 1:
            prefix = "Dry run, nothing written. " if options["dry_run"] else ""
            self.stdout.write(self.style.SUCCESS(prefix + str(summary)))
