from django.urls import path

from . import views

app_name = "scoring"

urlpatterns = [
    path("loops/<uuid:public_id>/debrief/", views.debrief_detail, name="debrief"),
    path("loops/<uuid:public_id>/debrief/status/", views.debrief_status, name="debrief_status"),
    path("loops/<uuid:public_id>/debrief.md", views.debrief_markdown, name="debrief_markdown"),
    path("loops/<uuid:public_id>/debrief.pdf", views.debrief_pdf, name="debrief_pdf"),
    path("progress/", views.progress, name="progress"),
]
