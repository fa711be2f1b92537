from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from .models import Bank


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    banks = Bank.objects.published()
    return TemplateResponse(request, "interviews/home.html", {"banks": banks})
