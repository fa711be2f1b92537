"""Settings come from the environment; production settings pass the deploy checks."""

from __future__ import annotations

import os
import subprocess
import sys

from django.conf import settings

ROOT = settings.BASE_DIR


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DEBUG", "SECRET_KEY",
                          "DJANGO_SETTINGS_MODULE", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS",
                          "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    return subprocess.run(  # noqa: S603
        [sys.executable, "-c", code], cwd=ROOT, env=clean | env, capture_output=True, text=True,
        timeout=60)


READ_SETTINGS = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'engine': s.DATABASES['default']['ENGINE'], "
    "'name': str(s.DATABASES['default']['NAME']), 'broker': s.CELERY_BROKER_URL, "
    "'eager': s.CELERY_TASK_ALWAYS_EAGER, 'hosts': s.ALLOWED_HOSTS, "
    "'origins': s.CSRF_TRUSTED_ORIGINS, 'debug': s.DEBUG, 'secret': s.SECRET_KEY}))"
)


def test_embedded_default_without_services():
    import json

    result = run_python(READ_SETTINGS, {"DJANGO_SETTINGS_MODULE": "config.settings.dev"})
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert values["engine"] == "django.db.backends.sqlite3"
    assert values["eager"] is True
    assert values["debug"] is True


def test_real_stack_from_environment():
    import json

    result = run_python(READ_SETTINGS, {
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": "postgres://someone@db.internal:5432/mockloop_prod",
        "REDIS_URL": "redis://cache.internal:6379/2",
        "SECRET_KEY": "from-the-environment",
        "ALLOWED_HOSTS": "mockloop.example.com,www.mockloop.example.com",
        "CSRF_TRUSTED_ORIGINS": "https://mockloop.example.com",
    })
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout)
    assert values["engine"] == "django.db.backends.postgresql"
    assert values["name"] == "mockloop_prod"
    assert values["broker"] == "redis://cache.internal:6379/2"
    assert values["eager"] is False
    assert values["hosts"] == ["mockloop.example.com", "www.mockloop.example.com"]
    assert values["origins"] == ["https://mockloop.example.com"]
    assert values["secret"] == "from-the-environment"
    assert values["debug"] is False


def test_missing_secret_key_refuses_to_start_in_production():
    result = run_python(READ_SETTINGS, {"DJANGO_SETTINGS_MODULE": "config.settings.production"})
    assert result.returncode != 0
    assert "Set SECRET_KEY" in result.stderr


def test_production_settings_pass_deploy_checks():
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "a-long-random-production-secret-key-with-enough-entropy-0123456789abcdef",
        "ALLOWED_HOSTS": "mockloop.example.com",
    }
    code = ("import sys; from django.core.management import execute_from_command_line; "
            "execute_from_command_line(['manage.py', 'check', '--deploy', '--fail-level', "
            "'WARNING'])")
    result = run_python(code, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
