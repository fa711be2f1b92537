from __future__ import annotations

from django.contrib.admin.apps import AdminConfig


class MockloopAdminConfig(AdminConfig):
    """django.contrib.admin with our site class as the default `admin.site`."""

    default_site = "config.admin.MockloopAdminSite"
