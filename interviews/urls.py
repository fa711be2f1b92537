from __future__ import annotations

from django.urls import path

from . import views

app_name = "interviews"

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/signup/", views.signup, name="signup"),
    path("loops/start/", views.loop_start, name="loop_start"),
    path("loops/<uuid:public_id>/", views.loop_detail, name="loop_detail"),
    path("loops/<uuid:public_id>/finish/", views.loop_finish, name="loop_finish"),
    path("loops/<uuid:public_id>/q/<int:position>/", views.question, name="question"),
    path("loops/<uuid:public_id>/q/<int:position>/draft/", views.draft_save, name="draft_save"),
    path("loops/<uuid:public_id>/q/<int:position>/answer/", views.answer_submit,
         name="answer_submit"),
    path("loops/<uuid:public_id>/q/<int:position>/follow-up/", views.follow_up_submit,
         name="follow_up_submit"),
    path("loops/<uuid:public_id>/q/<int:position>/follow-up/decline/", views.follow_up_decline,
         name="follow_up_decline"),
    path("loops/<uuid:public_id>/q/<int:position>/status/", views.answer_status,
         name="answer_status"),
    path("loops/<uuid:public_id>/q/<int:position>/retry/", views.answer_retry,
         name="answer_retry"),
]
