"""Workspaces and their members: scenarios, runs, reports and searches belong to a workspace, and a user sees
and touches only the workspaces they are a member of, as far as their role allows."""

from __future__ import annotations

from django.conf import settings
from django.db import models

__all__ = ["Workspace", "Membership", "Invitation", "Role", "ROLE_RANK"]


class Role(models.TextChoices):
    VIEWER = "viewer", "viewer (reads)"
    EDITOR = "editor", "editor (creates, runs, cancels, exports)"
    ADMIN = "admin", "admin (also manages members)"


#: a role grants everything the roles ranked below it grant
ROLE_RANK = {Role.VIEWER: 1, Role.EDITOR: 2, Role.ADMIN: 3}


class Workspace(models.Model):
    name = models.CharField(max_length=120)
    slug = models.SlugField(unique=True)
    personal_of = models.OneToOneField(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                                       related_name="personal_workspace",
                                       help_text="the user whose personal workspace this is (created with the user)")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def role_of(self, user) -> str | None:
        """The user's role here, or None when they are not a member."""
        if not getattr(user, "is_authenticated", False):
            return None
        return self.memberships.filter(user=user).values_list("role", flat=True).first()


class Membership(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=8, choices=Role.choices, default=Role.VIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["workspace", "user__username"]
        constraints = [models.UniqueConstraint(fields=["workspace", "user"], name="one_membership_per_user")]

    def __str__(self) -> str:
        return f"{self.user} in {self.workspace} ({self.role})"


class Invitation(models.Model):
    """An admin's offer of a role in a workspace to a user, who becomes a member only by accepting it."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=8, choices=Role.choices, default=Role.VIEWER)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["workspace", "user"], name="one_invitation_per_user")]

    def __str__(self) -> str:
        return f"{self.user} invited to {self.workspace} ({self.role})"
