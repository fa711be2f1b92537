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


READ_EMAIL = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({k: getattr(s, k) for k in ('EMAIL_BACKEND', 'EMAIL_HOST', 'EMAIL_PORT', "
    "'EMAIL_HOST_USER', 'EMAIL_HOST_PASSWORD', 'EMAIL_USE_TLS', 'EMAIL_USE_SSL', "
    "'DEFAULT_FROM_EMAIL')}))"
)
SMTP = "django.core.mail.backends.smtp.EmailBackend"
CONSOLE = "django.core.mail.backends.console.EmailBackend"


def read_email(env: dict[str, str]) -> dict:
    import json

    result = run_python(READ_EMAIL, {"DJANGO_SETTINGS_MODULE": "config.settings.base",
                                     "SECRET_KEY": "x", **env})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_email_from_email_url():
    values = read_email({"EMAIL_URL": "smtp+tls://mailer:p%40ss@smtp.example.com:2587",
                         "DEFAULT_FROM_EMAIL": "mockloop <hello@example.com>"})
    assert values == {"EMAIL_BACKEND": SMTP, "EMAIL_HOST": "smtp.example.com", "EMAIL_PORT": 2587,
                      "EMAIL_HOST_USER": "mailer", "EMAIL_HOST_PASSWORD": "p@ss",
                      "EMAIL_USE_TLS": True, "EMAIL_USE_SSL": False,
                      "DEFAULT_FROM_EMAIL": "mockloop <hello@example.com>"}
    assert read_email({"EMAIL_URL": "smtps://smtp.example.com"})["EMAIL_PORT"] == 465
    assert read_email({"EMAIL_URL": "console://"})["EMAIL_BACKEND"] == CONSOLE


def test_email_from_email_variables():
    values = read_email({"EMAIL_HOST": "relay.internal", "EMAIL_PORT": "2525",
                         "EMAIL_USE_TLS": "true", "EMAIL_HOST_USER": "u"})
    assert values["EMAIL_BACKEND"] == SMTP and values["EMAIL_HOST"] == "relay.internal"
    assert values["EMAIL_PORT"] == 2525 and values["EMAIL_USE_TLS"] is True


def test_email_goes_to_the_console_in_development():
    # ./scripts/run uses the dev settings: a reset link is printed, not sent to port 25.
    values = read_email({"DJANGO_SETTINGS_MODULE": "config.settings.dev"})
    assert values["EMAIL_BACKEND"] == CONSOLE
    assert read_email({})["EMAIL_BACKEND"] == SMTP  # production-like default
