"""The interviewer flag is cached across requests and follows group changes at once."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from interviews.context_processors import INTERVIEWER_GROUP, is_interviewer
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def fresh(user):
    return type(user).objects.get(pk=user.pk)  # a new request's user object


def test_membership_is_read_once_then_from_the_cache(django_assert_num_queries):
    user = UserFactory(interviewer=True)
    assert is_interviewer(fresh(user)) is True
    again = fresh(user)
    with django_assert_num_queries(0):
        assert is_interviewer(again) is True


def test_adding_and_removing_the_group_takes_effect_at_once():
    user = UserFactory()
    assert is_interviewer(fresh(user)) is False
    group, _ = Group.objects.get_or_create(name=INTERVIEWER_GROUP)
    user.groups.add(group)
    assert is_interviewer(fresh(user)) is True
    group.user_set.remove(user)
    assert is_interviewer(fresh(user)) is False
    user.groups.add(group)
    assert is_interviewer(fresh(user)) is True
    group.user_set.clear()
    assert is_interviewer(fresh(user)) is False
