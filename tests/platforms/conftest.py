"""Fixtures of the platform-copy tests: Alice's workspace holds a copy of Magnus; Carol views it, Dave edits it, Bob
is only in his own workspace."""

from __future__ import annotations

import pytest

from apps.accounts.models import Membership, Role
from apps.accounts.workspaces import personal_workspace
from apps.platforms.models import Platform
from apps.platforms.services import copy_platform


@pytest.fixture
def team(db, catalogue, django_user_model) -> dict:
    users = {name: django_user_model.objects.create_user(username=name, password="correct horse battery")
             for name in ("alice", "bob", "carol", "dave")}
    workspace = personal_workspace(users["alice"])
    personal_workspace(users["bob"])
    Membership.objects.create(workspace=workspace, user=users["carol"], role=Role.VIEWER)
    Membership.objects.create(workspace=workspace, user=users["dave"], role=Role.EDITOR)
    return {**users, "workspace": workspace}


@pytest.fixture
def magnus_copy(team) -> Platform:
    return copy_platform(Platform.objects.get(slug="magnus"), team["workspace"], user=team["alice"])
