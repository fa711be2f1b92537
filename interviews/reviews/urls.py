"""Interviewers' pages, mounted at review/ in config/urls.py."""

from __future__ import annotations

from django.urls import path

from . import views

app_name = "reviews"

urlpatterns = [
    path("", views.queue, name="queue"),
    path("loops/<uuid:public_id>/", views.loop_review, name="loop"),
    path("loops/<uuid:public_id>/q/<int:position>/<str:kind>/", views.scorecard,
         name="scorecard"),
    path("calibration/", views.calibration, name="calibration"),
    path("notifications/read/", views.notifications_read, name="notifications_read"),
]
