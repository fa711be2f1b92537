from typing import Any

from django.apps import AppConfig


class InterviewsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "interviews"
    verbose_name = "Interviews"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_in
        from django.db.models.signals import m2m_changed

        # Cache upkeep only: the interviewer flag is read at login (not on the first page)
        # and follows group changes at once.
        m2m_changed.connect(_groups_changed, sender=get_user_model().groups.through,
                            dispatch_uid="interviews.roles.groups_changed")
        user_logged_in.connect(_logged_in, dispatch_uid="interviews.roles.logged_in")


def _logged_in(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    from .context_processors import forget_membership, is_interviewer

    forget_membership(user.pk)  # a fresh read at each login
    is_interviewer(user)


def _groups_changed(sender: Any, instance: Any, action: str, reverse: bool, pk_set: Any,
                    **kwargs: Any) -> None:
    from .context_processors import forget_membership

    if reverse and action == "pre_clear":  # group.user_set.clear(): who is in it now
        users = list(instance.user_set.values_list("pk", flat=True))
    elif action.startswith("post_"):
        users = (pk_set or []) if reverse else [instance.pk]
    else:
        return
    for user_id in users:
        forget_membership(user_id)
