from django.urls import path

from . import views

app_name = "scoring"

urlpatterns = [
    path("loops/<uuid:public_id>/debrief/", views.debrief_detail, name="debrief"),
    path("progress/", views.progress, name="progress"),
]
