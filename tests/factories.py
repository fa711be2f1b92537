"""factory_boy factories for the models people create in tests."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from interviews.context_processors import INTERVIEWER_GROUP
from interviews.models import (
    Bank,
    CompensationBand,
    PanelPersona,
    Question,
    RubricCriterion,
    Topic,
)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.PostGenerationMethodCall("set_password", "correct horse battery staple")

    @factory.post_generation
    def interviewer(self, create: bool, extracted: bool | None, **kwargs: object) -> None:
        if create and extracted:
            group, _ = Group.objects.get_or_create(name=INTERVIEWER_GROUP)
            self.groups.add(group)
        if create:
            self.save()


class BankFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Bank

    title = factory.Sequence(lambda n: f"Bank {n}")
    slug = factory.Sequence(lambda n: f"bank-{n}")
    role = "AI Engineer"
    is_published = True


class TopicFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Topic

    bank = factory.SubFactory(BankFactory)
    slug = factory.Sequence(lambda n: f"topic-{n}")
    title = factory.Sequence(lambda n: f"Topic {n}")
    order = factory.Sequence(lambda n: n)


class QuestionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Question

    topic = factory.SubFactory(TopicFactory)
    slug = factory.Sequence(lambda n: f"question-{n}")
    order = factory.Sequence(lambda n: n)
    prompt = "What latency budget would you set for a model that must return scores within 20ms?"
    company = "TikTok"
    team = "Ad ranking"
    when = "Q4 2023"
    scenario = "You own the ranking model behind a 20ms scoring contract."
    constraints = factory.LazyFunction(lambda: ["Return scores within 20ms"])
    time_limit_seconds = 600
    model_answer = (
        "Target 15ms p99 internally, leaving headroom for network jitter. Budget the kernel "
        "launch overhead of about 2ms, trade batch size against queueing delay, and load test "
        "with per-stage tracing as the measurement plan."
    )
    pushback = factory.LazyFunction(lambda: ["How would you know you hit the budget?"])
    mistakes = factory.LazyFunction(
        lambda: [{"bad": "Batch 64 without checking launch overhead.",
                  "good": "Measure the 2ms launch cost and pick batch 32."}])
    facts = factory.LazyFunction(lambda: ["Kernel launch overhead measured at 2ms"])


class CriterionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = RubricCriterion

    question = factory.SubFactory(QuestionFactory)
    key = factory.Sequence(lambda n: f"criterion-{n}")
    order = factory.Sequence(lambda n: n)
    label = "Leaves headroom under the contract"
    kind = RubricCriterion.Kind.CONCEPT
    weight = 2.0
    phrases = factory.LazyFunction(lambda: ["headroom", "buffer", "network jitter"])
    feedback_hit = "You left headroom under the 20ms contract."
    feedback_miss = "Leave headroom under the caller's 20ms for jitter you don't control."


class PersonaFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PanelPersona

    bank = factory.SubFactory(BankFactory)
    role = PanelPersona.Role.HIRING_MANAGER
    name = "Dana"
    strictness = 0.5


class CompensationBandFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CompensationBand

    bank = factory.SubFactory(BankFactory)
    base_min = 185_000
    base_max = 210_000
    equity_min_percent = 0.02
    equity_max_percent = 0.04
    sign_on_min = 30_000
    sign_on_max = 50_000
