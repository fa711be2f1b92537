"""What admins curate (banks, questions, rubrics, personas, bands) and what people do with them
(loops, answers, scorecards)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone


class BankQuerySet(models.QuerySet["Bank"]):
    def published(self) -> BankQuerySet:
        return self.filter(is_published=True)


class Bank(models.Model):
    class DecisionRule(models.TextChoices):
        MAJORITY = "majority", "Majority of the panel"
        BAR_RAISER_VETO = "bar_raiser_veto", "Majority, and the bar raiser can veto"

    title = models.CharField("title", max_length=200, help_text="Shown to candidates.")
    slug = models.SlugField("slug", max_length=100, unique=True,
                            help_text="Stable identifier used by bank files; never reuse one.")
    role = models.CharField("role", max_length=200,
                            help_text="The job this bank prepares for, e.g. 'AI Engineer'.")
    description = models.TextField("description", blank=True)
    is_published = models.BooleanField("published", default=False,
                                       help_text="Only published banks are offered to candidates.")
    version = models.PositiveIntegerField("version", default=1,
                                          help_text="Bumped by the bank file on each release.")
    decision_rule = models.CharField("decision rule", max_length=30, choices=DecisionRule.choices,
                                     default=DecisionRule.MAJORITY)
    assumptions = models.TextField(
        "assumptions", blank=True,
        help_text="What the bank assumes where the source material is silent or inconsistent.")
    checklist = models.JSONField("preparation checklist", default=list, blank=True,
                                 help_text="A list of short preparation items.")
    faq = models.JSONField("FAQ", default=list, blank=True,
                           help_text="A list of {question, answer} pairs.")
    reviewers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="reviewable_banks",
        verbose_name="reviewers", help_text="Interviewers who review this bank's loops.")
    reviewers_see_all_loops = models.BooleanField(
        "reviewers see all loops", default=False,
        help_text="If set, the bank's reviewers may review any of its loops, not only assigned.")
    show_reviewer_names = models.BooleanField(
        "show reviewer names to candidates", default=False)
    created_at = models.DateTimeField("created", auto_now_add=True)
    updated_at = models.DateTimeField("updated", auto_now=True)

    objects = BankQuerySet.as_manager()

    class Meta:
        ordering = ["title"]
        verbose_name = "question bank"
        verbose_name_plural = "question banks"

    def __str__(self) -> str:
        return self.title


class Topic(models.Model):
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="topics",
                             verbose_name="bank")
    slug = models.SlugField("slug", max_length=100)
    title = models.CharField("title", max_length=200)
    description = models.TextField("description", blank=True)
    order = models.PositiveIntegerField("order", default=0)

    class Meta:
        ordering = ["bank", "order", "id"]
        verbose_name = "topic"
        verbose_name_plural = "topics"
        constraints = [
            models.UniqueConstraint(fields=["bank", "slug"], name="topic_unique_slug_per_bank"),
        ]

    def __str__(self) -> str:
        return self.title


class Question(models.Model):
    class Difficulty(models.TextChoices):
        ENTRY = "entry", "Entry"
        MID = "mid", "Mid-level"
        SENIOR = "senior", "Senior"
        STAFF = "staff", "Staff"

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="questions",
                              verbose_name="topic")
    slug = models.SlugField("slug", max_length=120, help_text="Unique within the bank.")
    order = models.PositiveIntegerField("order", default=0)
    prompt = models.TextField("prompt", help_text="The question as the interviewer says it.")
    is_verbatim = models.BooleanField(
        "verbatim from source", default=False,
        help_text="The prompt is quoted word for word from the bank's source material.")
    company = models.CharField("company", max_length=200, blank=True)
    team = models.CharField("team", max_length=200, blank=True)
    when = models.CharField("when", max_length=60, blank=True, help_text="e.g. 'Q4 2023'.")
    scenario = models.TextField("scenario", blank=True,
                                help_text="The situation the candidate is placed in.")
    constraints = models.JSONField("constraints", default=list, blank=True,
                                   help_text="Constraints the interviewer gives, one per item.")
    difficulty = models.CharField("difficulty", max_length=10, choices=Difficulty.choices,
                                  default=Difficulty.SENIOR)
    time_limit_seconds = models.PositiveIntegerField("time limit (seconds)", default=600)
    model_answer = models.TextField("model answer", blank=True)
    pushback = models.JSONField(
        "pushback lines", default=list, blank=True,
        help_text="What the interviewer says when a point is missing, one line per item.")
    mistakes = models.JSONField("common mistakes", default=list, blank=True,
                                help_text="A list of {bad, good} pairs.")
    facts = models.JSONField("facts and numbers", default=list, blank=True,
                             help_text="Facts and numbers a good answer uses.")
    rubric_version = models.PositiveIntegerField(
        "rubric version", default=1, help_text="Bumped whenever the rubric criteria change.")

    class Meta:
        ordering = ["topic__bank", "topic__order", "order", "id"]
        verbose_name = "question"
        verbose_name_plural = "questions"
        constraints = [
            models.UniqueConstraint(fields=["topic", "slug"],
                                    name="question_unique_slug_per_topic"),
        ]

    def __str__(self) -> str:
        return self.prompt[:80]

    @property
    def time_limit(self) -> timedelta:
        return timedelta(seconds=self.time_limit_seconds)


class RubricCriterion(models.Model):
    class Kind(models.TextChoices):
        CONCEPT = "concept", "Concept (a point the answer should make)"
        NUMERIC = "numeric", "Numeric (a value the answer should reach)"
        PITFALL = "pitfall", "Pitfall (a claim that costs points)"

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="criteria",
                                 verbose_name="question")
    key = models.SlugField("key", max_length=80, help_text="Unique within the question.")
    order = models.PositiveIntegerField("order", default=0)
    label = models.CharField("label", max_length=200)
    kind = models.CharField("kind", max_length=10, choices=Kind.choices, default=Kind.CONCEPT)
    weight = models.FloatField("weight", default=1.0,
                               help_text="Relative weight; pitfalls subtract this share.")
    checks = models.TextField("what it checks", blank=True)
    phrases = models.JSONField("phrases", default=list, blank=True,
                               help_text="Words and paraphrases that show the point.")
    expected_value = models.FloatField("expected value", null=True, blank=True)
    unit = models.CharField("unit", max_length=30, blank=True)
    tolerance_percent = models.FloatField("tolerance (%)", null=True, blank=True)
    feedback_hit = models.TextField("feedback when made", blank=True)
    feedback_miss = models.TextField("feedback when missed", blank=True)

    class Meta:
        ordering = ["question", "order", "id"]
        verbose_name = "rubric criterion"
        verbose_name_plural = "rubric criteria"
        constraints = [
            models.UniqueConstraint(fields=["question", "key"], name="criterion_unique_key"),
            models.CheckConstraint(condition=Q(weight__gt=0), name="criterion_weight_positive"),
        ]

    def __str__(self) -> str:
        return self.label


class PanelPersona(models.Model):
    class Role(models.TextChoices):
        HIRING_MANAGER = "hiring_manager", "Hiring manager"
        BAR_RAISER = "bar_raiser", "Bar raiser"
        TECH_LEAD = "tech_lead", "Tech lead"
        SRE = "sre", "SRE"
        PEER = "peer", "Peer engineer"

    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="personas",
                             verbose_name="bank")
    role = models.CharField("role", max_length=20, choices=Role.choices)
    name = models.CharField("name", max_length=100)
    weighs_most = models.TextField("what they weigh most", blank=True)
    topic_weights = models.JSONField(
        "topic weights", default=dict, blank=True,
        help_text="Topic slug to weight; topics not listed weigh 1.")
    strictness = models.FloatField(
        "strictness", default=0.5,
        help_text="0 lenient to 1 strict; strict personas punish omissions harder.")

    class Meta:
        ordering = ["bank", "id"]
        verbose_name = "panel persona"
        verbose_name_plural = "panel personas"
        constraints = [
            models.UniqueConstraint(fields=["bank", "role"], name="persona_unique_role_per_bank"),
            models.CheckConstraint(condition=Q(strictness__gte=0) & Q(strictness__lte=1),
                                   name="persona_strictness_0_1"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_role_display()})"


class CompensationBand(models.Model):
    bank = models.OneToOneField(Bank, on_delete=models.CASCADE, related_name="compensation",
                                verbose_name="bank")
    currency = models.CharField("currency", max_length=3, default="USD")
    base_min = models.PositiveIntegerField("base salary, low")
    base_max = models.PositiveIntegerField("base salary, high")
    equity_min_percent = models.FloatField("equity, low (%)")
    equity_max_percent = models.FloatField("equity, high (%)")
    sign_on_min = models.PositiveIntegerField("sign-on bonus, low")
    sign_on_max = models.PositiveIntegerField("sign-on bonus, high")
    source_note = models.TextField("source", blank=True,
                                   help_text="Where the band comes from.")

    class Meta:
        verbose_name = "compensation band"
        verbose_name_plural = "compensation bands"
        constraints = [
            models.CheckConstraint(condition=Q(base_min__lte=models.F("base_max")),
                                   name="band_base_ordered"),
            models.CheckConstraint(
                condition=Q(equity_min_percent__lte=models.F("equity_max_percent")),
                name="band_equity_ordered"),
            models.CheckConstraint(condition=Q(sign_on_min__lte=models.F("sign_on_max")),
                                   name="band_sign_on_ordered"),
        ]

    def __str__(self) -> str:
        return f"Compensation band for {self.bank}"


# --- Loops: what candidates do -------------------------------------------------------------


class LoopQuerySet(models.QuerySet["Loop"]):
    def for_candidate(self, user: Any) -> LoopQuerySet:
        return self.filter(candidate=user)

    def active(self) -> LoopQuerySet:
        return self.filter(status=Loop.Status.IN_PROGRESS)

    def finished(self) -> LoopQuerySet:
        return self.filter(status=Loop.Status.FINISHED)


class Loop(models.Model):
    class Format(models.TextChoices):
        FULL = "full", "Full loop (one question per topic)"
        TOPIC = "topic", "Topic drill (three questions from one topic)"
        SINGLE = "single", "Single question"
        DRILL = "drill", "Criterion drill (questions that train one weak point)"

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", "In progress"
        FINISHED = "finished", "Finished"
        EXPIRED = "expired", "Expired"

    public_id = models.UUIDField("public id", default=uuid.uuid4, unique=True, editable=False)
    candidate = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                  related_name="loops", verbose_name="candidate")
    bank = models.ForeignKey(Bank, on_delete=models.PROTECT, related_name="loops",
                             verbose_name="bank")
    format = models.CharField("format", max_length=10, choices=Format.choices)
    topic = models.ForeignKey(Topic, on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+", verbose_name="topic (drills)")
    focus = models.CharField(
        "focus (criterion drills)", max_length=200, blank=True,
        help_text="The rubric criterion a criterion drill trains, as the candidate saw it.")
    status = models.CharField("status", max_length=12, choices=Status.choices,
                              default=Status.IN_PROGRESS)
    started_at = models.DateTimeField("started", default=timezone.now)
    last_activity_at = models.DateTimeField("last activity", default=timezone.now)
    finished_at = models.DateTimeField("finished", null=True, blank=True)
    reviewers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="assigned_loops",
        verbose_name="assigned interviewers")

    objects = LoopQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at"]
        verbose_name = "loop"
        verbose_name_plural = "loops"
        indexes = [
            models.Index(fields=["candidate", "-started_at"], name="loop_candidate_recent"),
            # The review queue pages newest first by (finished_at, id): the id in the index
            # lets it stop after a page instead of sorting every loop finished at one time.
            models.Index(fields=["status", "-finished_at", "-id"], name="loop_status_finished"),
        ]

    def __str__(self) -> str:
        return f"{self.get_format_display()} on {self.bank} by {self.candidate}"

    def get_absolute_url(self) -> str:
        return reverse("interviews:loop_detail", kwargs={"public_id": self.public_id})

    def finish(self) -> None:
        if self.status == self.Status.IN_PROGRESS:
            self.status = self.Status.FINISHED
            self.finished_at = timezone.now()
            self.save(update_fields=["status", "finished_at"])


class LoopQuestion(models.Model):
    """A question as it was when the loop started: later bank edits never change it."""

    loop = models.ForeignKey(Loop, on_delete=models.CASCADE, related_name="loop_questions",
                             verbose_name="loop")
    question = models.ForeignKey(Question, on_delete=models.SET_NULL, null=True, blank=True,
                                 related_name="loop_questions", verbose_name="bank question")
    position = models.PositiveIntegerField("position")
    snapshot = models.JSONField(
        "snapshot", help_text="Prompt, scenario, time limit, rubric and model answer at start.")
    rubric_version = models.PositiveIntegerField("rubric version")
    started_at = models.DateTimeField("first shown", null=True, blank=True)
    draft = models.TextField("draft", blank=True)
    draft_saved_at = models.DateTimeField("draft saved", null=True, blank=True)
    follow_up_declined_at = models.DateTimeField(
        "follow-up declined", null=True, blank=True,
        help_text="The candidate chose to see the model answer instead of replying.")

    class Meta:
        ordering = ["loop", "position"]
        verbose_name = "loop question"
        verbose_name_plural = "loop questions"
        constraints = [
            models.UniqueConstraint(fields=["loop", "position"], name="loop_question_position"),
        ]

    def __str__(self) -> str:
        return f"Q{self.position} of {self.loop_id}"

    @property
    def time_limit_seconds(self) -> int:
        return int(self.snapshot.get("time_limit_seconds", 600))

    @property
    def deadline(self) -> Any:
        if self.started_at is None:
            return None
        return self.started_at + timedelta(seconds=self.time_limit_seconds)


class Answer(models.Model):
    class Kind(models.TextChoices):
        INITIAL = "initial", "Answer"
        FOLLOW_UP = "follow_up", "Follow-up to pushback"

    class ScoringStatus(models.TextChoices):
        QUEUED = "queued", "Queued for scoring"
        SCORING = "scoring", "Scoring"
        SCORED = "scored", "Scored"
        FAILED = "failed", "Scoring failed"

    loop_question = models.ForeignKey(LoopQuestion, on_delete=models.CASCADE,
                                      related_name="answers", verbose_name="loop question")
    kind = models.CharField("kind", max_length=10, choices=Kind.choices, default=Kind.INITIAL)
    text = models.TextField("text")
    submitted_at = models.DateTimeField("submitted", default=timezone.now)
    is_overtime = models.BooleanField("overtime", default=False,
                                      help_text="Submitted after the question's time limit.")
    scoring_status = models.CharField("scoring status", max_length=10,
                                      choices=ScoringStatus.choices, default=ScoringStatus.QUEUED)
    scoring_error = models.TextField("scoring failure reason", blank=True)
    scoring_attempts = models.PositiveIntegerField("scoring attempts", default=0)
    status_changed_at = models.DateTimeField("status changed", default=timezone.now)

    class Meta:
        ordering = ["loop_question", "submitted_at"]
        verbose_name = "answer"
        verbose_name_plural = "answers"
        constraints = [
            # One answer and at most one follow-up per question: double submits store one.
            models.UniqueConstraint(fields=["loop_question", "kind"], name="answer_once_per_kind"),
        ]
        indexes = [
            models.Index(fields=["scoring_status", "status_changed_at"], name="answer_scoring_due"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} to {self.loop_question}"

    @property
    def scored_result(self) -> Any:
        """The automatic score (scoring.ScoreResult) once scoring has finished, else None."""
        if self.scoring_status != self.ScoringStatus.SCORED:
            return None
        # The reverse one-to-one raises RelatedObjectDoesNotExist, an AttributeError.
        return getattr(self, "score", None)


class Scorecard(models.Model):
    """An interviewer's structured review of one answer."""

    class Recommendation(models.TextChoices):
        STRONG_NO_HIRE = "strong_no_hire", "Strong No Hire"
        NO_HIRE = "no_hire", "No Hire"
        HIRE = "hire", "Hire"
        STRONG_HIRE = "strong_hire", "Strong Hire"

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="scorecards",
                               verbose_name="answer")
    # The answer's loop, copied on save: the review queue's "reviewed by me" and scorecard
    # counts read (interviewer, loop) from one index instead of joining answers and questions.
    loop = models.ForeignKey("Loop", on_delete=models.CASCADE, related_name="scorecards",
                             null=True, blank=True, editable=False, verbose_name="loop")
    interviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                    related_name="scorecards", verbose_name="interviewer")
    verdicts = models.JSONField("criterion verdicts", default=dict,
                                help_text="Criterion key to made / partly / missed / contradicted.")
    rating = models.PositiveSmallIntegerField("rating (1-4)")
    recommendation = models.CharField("recommendation", max_length=20,
                                      choices=Recommendation.choices)
    notes = models.TextField("notes", blank=True)
    submitted_at = models.DateTimeField("submitted", default=timezone.now)

    class Meta:
        ordering = ["-submitted_at"]
        verbose_name = "scorecard"
        verbose_name_plural = "scorecards"
        constraints = [
            models.UniqueConstraint(fields=["answer", "interviewer"],
                                    name="scorecard_once_per_interviewer"),
            models.CheckConstraint(condition=Q(rating__gte=1) & Q(rating__lte=4),
                                   name="scorecard_rating_1_4"),
        ]
        indexes = [
            # The review queue's "reviewed by me": an index-only scan of one interviewer's
            # loops (the unique constraint above leads with the answer).
            models.Index(fields=["interviewer", "loop"], name="scorecard_interviewer_loop"),
        ]

    def __str__(self) -> str:
        return f"Scorecard by {self.interviewer} on {self.answer}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.loop_id is None and self.answer_id is not None:
            self.loop_id = (LoopQuestion.objects.filter(answers__pk=self.answer_id)
                            .values_list("loop_id", flat=True).first())
        super().save(*args, **kwargs)


class Notification(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="notifications", verbose_name="user")
    message = models.CharField("message", max_length=300)
    url = models.CharField("link", max_length=300, blank=True)
    created_at = models.DateTimeField("created", auto_now_add=True)
    read_at = models.DateTimeField("read", null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "notification"
        verbose_name_plural = "notifications"
        indexes = [models.Index(fields=["user", "read_at"], name="notification_unread")]

    def __str__(self) -> str:
        return self.message
