from django.contrib import admin
from django.urls import include, path

from interviews.views import login_view, password_change, password_reset

urlpatterns = [
    path("", include("ops.urls")),
    path("admin/", admin.site.urls),
    # Throttled (interviews/throttle.py); the rest of Django's auth views as they are.
    path("accounts/login/", login_view, name="login"),
    path("accounts/password_change/", password_change, name="password_change"),
    path("accounts/password_reset/", password_reset, name="password_reset"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("reports/", include("scoring.urls")),
    path("review/", include("interviews.reviews.urls")),
    path("", include("interviews.urls")),
]

# Renders without the session or the database; a database outage gets the 503 page.
handler500 = "ops.views.server_error"
