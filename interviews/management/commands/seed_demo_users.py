from __future__ import annotations

import json
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

from interviews.context_processors import INTERVIEWER_GROUP

DEMO_USERS = {
    "admin": {"is_staff": True, "is_superuser": True, "interviewer": False},
    "interviewer": {"is_staff": False, "is_superuser": False, "interviewer": True},
    "candidate": {"is_staff": False, "is_superuser": False, "interviewer": False},
}


class Command(BaseCommand):
    help = ("Create a demo admin, interviewer and candidate (once) and print their passwords. "
            "Passwords are kept in DATA_DIR/demo-credentials.json so re-running changes nothing.")

    def handle(self, *args: Any, **options: Any) -> None:
        store = settings.DATA_DIR / "demo-credentials.json"
        store.parent.mkdir(parents=True, exist_ok=True)
        saved: dict[str, str] = json.loads(store.read_text()) if store.exists() else {}
        user_model = get_user_model()
        group, _ = Group.objects.get_or_create(name=INTERVIEWER_GROUP)
        for username, flags in DEMO_USERS.items():
            user = user_model.objects.filter(username=username).first()
            if user is None:
                password = saved.get(username) or secrets.token_urlsafe(9)
                user = user_model.objects.create_user(
                    username=username, password=password,
                    is_staff=flags["is_staff"], is_superuser=flags["is_superuser"])
                saved[username] = password
                if flags["interviewer"]:
                    user.groups.add(group)
            password = saved.get(username, "(set before; unchanged)")
            self.stdout.write(f"   {username:<12} password: {password}")
        store.write_text(json.dumps(saved, indent=2))
        store.chmod(0o600)
