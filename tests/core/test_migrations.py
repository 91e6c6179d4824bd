"""The models and their migrations agree (no change is left for makemigrations)."""

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
