"""The admin is where admins curate banks: topics, questions with rubric criteria inline,
import and export of bank files, and a preview of a question as a candidate sees it."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from .bankfiles import MAX_FILE_BYTES, BankFileError, bank_export, bank_import_text
from .context_processors import INTERVIEWER_GROUP
from .models import (
    Answer,
    Bank,
    CompensationBand,
    Loop,
    LoopQuestion,
    Notification,
    PanelPersona,
    Question,
    RubricCriterion,
    Scorecard,
    Topic,
)


class TopicInline(admin.TabularInline):
    model = Topic
    extra = 0
    fields = ["order", "slug", "title"]
    show_change_link = True


class PanelPersonaInline(admin.TabularInline):
    model = PanelPersona
    extra = 0
    fields = ["role", "name", "strictness", "weighs_most", "topic_weights"]


class CompensationBandInline(admin.StackedInline):
    model = CompensationBand
    extra = 0


class BankImportForm(forms.Form):
    file = forms.FileField(
        label="Bank file (YAML)",
        help_text=f"Up to {MAX_FILE_BYTES // 1000:,} KB. Validated as a whole; nothing is "
                  "written if any part fails.")


@admin.register(Bank)
class BankAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "role", "version", "is_published", "question_count",
                    "export_link"]
    list_filter = ["is_published", "decision_rule"]
    search_fields = ["title", "slug", "role", "description"]
    prepopulated_fields = {"slug": ["title"]}
    filter_horizontal = ["reviewers"]
    inlines = [TopicInline, PanelPersonaInline, CompensationBandInline]
    change_list_template = "admin/interviews/bank/change_list.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Bank]:
        return super().get_queryset(request).annotate(_questions=Count("topics__questions"))

    @admin.display(description="questions", ordering="_questions")
    def question_count(self, bank: Bank) -> int:
        return bank._questions

    @admin.display(description="bank file")
    def export_link(self, bank: Bank) -> str:
        url = reverse("admin:interviews_bank_export", args=[bank.pk])
        return format_html('<a href="{}">Export YAML</a>', url)

    def get_urls(self) -> list[Any]:
        return [
            path("import/", self.admin_site.admin_view(self.import_view),
                 name="interviews_bank_import"),
            path("<int:bank_id>/export/", self.admin_site.admin_view(self.export_view),
                 name="interviews_bank_export"),
            *super().get_urls(),
        ]

    def import_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_add_permission(request) or not self.has_change_permission(request):
            raise PermissionDenied
        errors: list[str] = []
        form = BankImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            try:
                # Read no more than the limit (plus a byte to notice a larger file).
                summary = bank_import_text(form.cleaned_data["file"].read(MAX_FILE_BYTES + 1))
            except BankFileError as error:
                errors = error.errors
            else:
                self.message_user(request, str(summary), messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:interviews_bank_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "title": "Import a bank file",
            "form": form,
            "errors": errors,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/interviews/bank/import.html", context)

    def export_view(self, request: HttpRequest, bank_id: int) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        bank = get_object_or_404(Bank, pk=bank_id)
        response = HttpResponse(bank_export(bank), content_type="application/yaml; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{bank.slug}.yaml"'
        return response


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["title", "bank", "order"]
    list_filter = ["bank"]
    search_fields = ["title", "slug"]


class RubricCriterionInline(admin.StackedInline):
    model = RubricCriterion
    extra = 0
    fields = [("key", "order", "kind", "weight"), "label", "checks", "phrases",
              ("expected_value", "unit", "tolerance_percent"), "feedback_hit", "feedback_miss"]


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["short_prompt", "topic", "company", "difficulty", "is_verbatim",
                    "rubric_version", "criterion_count", "preview_link"]
    list_filter = ["topic__bank", "topic", "difficulty", "is_verbatim"]
    search_fields = ["prompt", "slug", "company", "team", "scenario"]
    list_select_related = ["topic"]
    inlines = [RubricCriterionInline]
    readonly_fields = ["rubric_version"]
    fieldsets = [
        (None, {"fields": ["topic", "slug", "order", "prompt", "is_verbatim", "difficulty",
                           "time_limit_seconds", "rubric_version"]}),
        ("Scenario", {"fields": ["company", "team", "when", "scenario", "constraints"]}),
        ("Reference material", {"fields": ["model_answer", "pushback", "mistakes", "facts"]}),
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Question]:
        return super().get_queryset(request).annotate(_criteria=Count("criteria"))

    @admin.display(description="prompt", ordering="prompt")
    def short_prompt(self, question: Question) -> str:
        return str(question)

    @admin.display(description="criteria", ordering="_criteria")
    def criterion_count(self, question: Question) -> int:
        return question._criteria

    @admin.display(description="preview")
    def preview_link(self, question: Question) -> str:
        url = reverse("admin:interviews_question_preview", args=[question.pk])
        return format_html('<a href="{}">Preview</a>', url)

    def get_urls(self) -> list[Any]:
        return [
            path("<int:question_id>/preview/", self.admin_site.admin_view(self.preview_view),
                 name="interviews_question_preview"),
            *super().get_urls(),
        ]

    def preview_view(self, request: HttpRequest, question_id: int) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        question = get_object_or_404(
            Question.objects.select_related("topic__bank").prefetch_related("criteria"),
            pk=question_id)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Preview: {question}",
            "question": question,
            "opts": self.model._meta,
            "original": question,
        }
        return TemplateResponse(request, "admin/interviews/question/preview.html", context)


class LoopQuestionInline(admin.TabularInline):
    model = LoopQuestion
    extra = 0
    fields = ["position", "question", "rubric_version", "started_at"]
    readonly_fields = fields
    can_delete = False


class AssignInterviewerForm(forms.Form):
    interviewer = forms.ModelChoiceField(
        queryset=get_user_model().objects.filter(
            Q(groups__name=INTERVIEWER_GROUP) | Q(is_staff=True)).distinct().order_by("username"),
        help_text="Members of the Interviewers group, and staff.")


@admin.register(Loop)
class LoopAdmin(admin.ModelAdmin):
    list_display = ["public_id", "candidate", "bank", "format", "status", "started_at",
                    "finished_at"]
    list_filter = ["status", "format", "bank"]
    search_fields = ["candidate__username", "public_id"]
    list_select_related = ["candidate", "bank"]
    filter_horizontal = ["reviewers"]
    readonly_fields = ["public_id", "candidate", "bank", "format", "topic", "started_at"]
    inlines = [LoopQuestionInline]
    actions = ["assign_to_interviewer", "request_new_debrief"]

    @admin.action(description="Write a new debrief version", permissions=["change"])
    def request_new_debrief(self, request: HttpRequest, queryset: QuerySet[Loop]) -> None:
        """For a debrief that failed, or after a bank fix: a new version, the old ones kept."""
        from scoring.reports import debrief_request

        finished = list(queryset.finished())
        for loop in finished:
            # Candidate-facing text: no admin's username (the admin log records who).
            debrief_request(loop=loop, reason="Requested by an admin")
        skipped = queryset.count() - len(finished)
        note = f" ({skipped} unfinished loop(s) skipped)" if skipped else ""
        self.message_user(request, f"Requested a new debrief for {len(finished)} loop(s){note}.",
                          messages.SUCCESS)

    @admin.action(description="Assign to interviewer", permissions=["change"])
    def assign_to_interviewer(self, request: HttpRequest,
                              queryset: QuerySet[Loop]) -> HttpResponse | None:
        """An intermediate page to pick the interviewer; adds them to each loop's reviewers."""
        form = AssignInterviewerForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            interviewer = form.cleaned_data["interviewer"]
            for loop in queryset:
                loop.reviewers.add(interviewer)
            self.message_user(request, f"Assigned {queryset.count()} loop(s) to {interviewer}.",
                              messages.SUCCESS)
            return None
        context = {**self.admin_site.each_context(request), "title": "Assign to an interviewer",
                   "loops": list(queryset.select_related("candidate", "bank")), "form": form,
                   "opts": self.model._meta}
        return TemplateResponse(request, "admin/interviews/loop/assign.html", context)


@admin.register(Answer)
class AnswerAdmin(admin.ModelAdmin):
    list_display = ["__str__", "kind", "scoring_status", "is_overtime", "submitted_at"]
    list_filter = ["scoring_status", "kind", "is_overtime"]
    readonly_fields = ["loop_question", "kind", "text", "submitted_at", "is_overtime",
                       "scoring_attempts", "status_changed_at"]
    list_select_related = ["loop_question"]


@admin.register(Scorecard)
class ScorecardAdmin(admin.ModelAdmin):
    list_display = ["answer", "interviewer", "rating", "recommendation", "submitted_at"]
    list_filter = ["recommendation", "rating"]
    list_select_related = ["answer__loop_question", "interviewer"]


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ["message", "user", "created_at", "read_at"]
    list_select_related = ["user"]
