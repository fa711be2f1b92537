"""What judgement produces: a score per answer, and debrief reports per loop."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from interviews.models import Answer, Bank, Loop, Scorecard


class ScoreResult(models.Model):
    """The automatic score of one submitted answer (answers are immutable once submitted)."""

    answer = models.OneToOneField(Answer, on_delete=models.CASCADE, related_name="score",
                                  verbose_name="answer")
    engine = models.CharField("engine", max_length=50)
    engine_version = models.CharField("engine version", max_length=20)
    rubric_version = models.PositiveIntegerField("rubric version")
    total = models.FloatField("total (0-100)")
    rating = models.PositiveSmallIntegerField("rating (1-4)")
    criteria = models.JSONField("criterion verdicts", default=list,
                                help_text="Per criterion: verdict, credit, evidence spans.")
    numbers = models.JSONField("numbers checked", default=list, blank=True)
    feedback = models.JSONField("feedback", default=dict, blank=True)
    duration_ms = models.FloatField("scoring time (ms)", default=0)
    created_at = models.DateTimeField("scored", auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "score"
        verbose_name_plural = "scores"
        constraints = [
            models.CheckConstraint(condition=Q(total__gte=0) & Q(total__lte=100),
                                   name="score_total_0_100"),
            models.CheckConstraint(condition=Q(rating__gte=1) & Q(rating__lte=4),
                                   name="score_rating_1_4"),
        ]

    def __str__(self) -> str:
        return f"{self.total:.0f}/100 for {self.answer}"


class Debrief(models.Model):
    """A simulated hiring-committee packet for a finished loop; new versions keep the old."""

    class Status(models.TextChoices):
        PENDING = "pending", "Being written"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    loop = models.ForeignKey(Loop, on_delete=models.CASCADE, related_name="debriefs",
                             verbose_name="loop")
    version = models.PositiveIntegerField("version", default=1)
    status = models.CharField("status", max_length=10, choices=Status.choices,
                              default=Status.PENDING)
    reason = models.CharField("why written", max_length=200, blank=True)
    report = models.JSONField("report", default=dict, blank=True)
    error = models.TextField("failure reason", blank=True)
    created_at = models.DateTimeField("requested", auto_now_add=True)
    ready_at = models.DateTimeField("ready", null=True, blank=True)
    provisional = models.BooleanField(
        "provisional", default=False,
        help_text="Written while some answers were still being scored; a new version follows "
                  "when their scores land.")
    pending_questions = models.JSONField(
        "questions still being scored", default=list, blank=True,
        help_text="Positions of the questions this version had no score for.")

    class Meta:
        ordering = ["loop", "-version"]
        verbose_name = "debrief"
        verbose_name_plural = "debriefs"
        constraints = [
            models.UniqueConstraint(fields=["loop", "version"], name="debrief_version_per_loop"),
        ]
        indexes = [
            # The sweep's and the metrics' look-up: few rows, so a small partial index.
            models.Index(fields=["ready_at"], name="debrief_provisional",
                         condition=Q(provisional=True)),
        ]

    def __str__(self) -> str:
        return f"Debrief v{self.version} of {self.loop}"


class CalibrationPoint(models.Model):
    """One scorecard beside the automatic score it judged, in narrow columns: written when
    both exist (scoring.calibration_store), so the calibration page aggregates these in SQL
    instead of loading every answer's text, snapshot and evidence."""

    scorecard = models.OneToOneField(Scorecard, on_delete=models.CASCADE,
                                     related_name="calibration_point", verbose_name="scorecard")
    loop = models.ForeignKey(Loop, on_delete=models.CASCADE, related_name="+",
                             verbose_name="loop")
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="+",
                             verbose_name="bank")
    question = models.CharField("question slug", max_length=200)
    interviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                    related_name="+", verbose_name="interviewer")
    auto_total = models.FloatField("automatic total")
    auto_rating = models.PositiveSmallIntegerField("automatic rating")
    human_rating = models.PositiveSmallIntegerField("interviewer's rating")

    class Meta:
        verbose_name = "calibration point"
        verbose_name_plural = "calibration points"
        indexes = [
            models.Index(fields=["bank", "question"], name="calib_point_question"),
            models.Index(fields=["interviewer", "bank", "question"],
                         name="calib_point_interviewer"),
        ]

    def __str__(self) -> str:
        return f"{self.auto_total:.0f} vs {self.human_rating}/4 on {self.question}"


class CriterionJudgement(models.Model):
    """One criterion of a calibration point: the automatic verdict and the interviewer's."""

    point = models.ForeignKey(CalibrationPoint, on_delete=models.CASCADE,
                              related_name="judgements", verbose_name="calibration point")
    key = models.CharField("criterion key", max_length=100)
    label = models.CharField("criterion", max_length=300)
    auto_verdict = models.CharField("automatic verdict", max_length=20, blank=True)
    human_verdict = models.CharField("interviewer's verdict", max_length=20, blank=True)
    flipped = models.BooleanField("flipped", default=False)

    class Meta:
        verbose_name = "criterion judgement"
        verbose_name_plural = "criterion judgements"

    def __str__(self) -> str:
        return f"{self.key}: {self.auto_verdict} → {self.human_verdict}"


class CalibrationCell(models.Model):
    """Running totals of calibration points per bank, question, whole-point automatic total
    and pair of ratings: the calibration page reads these, a bounded number of rows."""

    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="+",
                             verbose_name="bank")
    question = models.CharField("question slug", max_length=200)
    bucket = models.FloatField("automatic total, to the whole point")
    auto_rating = models.PositiveSmallIntegerField("automatic rating")
    human_rating = models.PositiveSmallIntegerField("interviewer's rating")
    n = models.PositiveIntegerField("scorecards", default=0)
    sx = models.FloatField("sum of totals", default=0)
    sxx = models.FloatField("sum of squared totals", default=0)
    sxy = models.FloatField("sum of total x rating", default=0)

    class Meta:
        verbose_name = "calibration cell"
        verbose_name_plural = "calibration cells"
        constraints = [models.UniqueConstraint(
            fields=["bank", "question", "bucket", "auto_rating", "human_rating"],
            name="calibration_cell_once")]

    def __str__(self) -> str:
        return (f"{self.question} {self.bucket:.0f}: "
                f"{self.auto_rating}/{self.human_rating} x{self.n}")


class FlipCell(models.Model):
    """Running count of criterion verdict pairs per bank and question."""

    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="+",
                             verbose_name="bank")
    question = models.CharField("question slug", max_length=200)
    key = models.CharField("criterion key", max_length=100)
    label = models.CharField("criterion", max_length=300)
    auto_verdict = models.CharField("automatic verdict", max_length=20, blank=True)
    human_verdict = models.CharField("interviewer's verdict", max_length=20, blank=True)
    n = models.PositiveIntegerField("scorecards", default=0)

    class Meta:
        verbose_name = "flip count"
        verbose_name_plural = "flip counts"
        constraints = [models.UniqueConstraint(
            fields=["bank", "question", "key", "auto_verdict", "human_verdict"],
            name="flip_cell_once")]

    def __str__(self) -> str:
        return f"{self.question}/{self.key}: {self.auto_verdict} → {self.human_verdict} x{self.n}"
