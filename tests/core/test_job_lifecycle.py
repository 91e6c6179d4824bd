"""The one job life (apps.core.jobs) on real rows: cancel, the progress helper's stop, and which running tasks a
worker terminates because their job ended without them.  (The same on real workers: tests/reliability.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.core.jobs import JobCancelled, Progress, cancel, unanswered_tasks
from apps.profiles.models import ProfileImport

pytestmark = pytest.mark.django_db


def _job(task_id: str = "", status: str = "running", ended_s_ago: float | None = None) -> ProfileImport:
    finished = timezone.now() - timedelta(seconds=ended_s_ago) if ended_s_ago is not None else None
    return ProfileImport.objects.create(filename="a.csv", upload_path="profiles/uploads/x/a.csv", task_id=task_id,
                                        status=status, finished_at=finished)


def test_cancel_ends_an_unfinished_job_once_and_its_progress_then_stops_the_work():
    job = _job(task_id="t-1")
    progress = Progress(ProfileImport, job.pk, interval_s=0.0)
    progress(1, 4)
    assert ProfileImport.objects.get(pk=job.pk).progress == 0.25

    assert cancel(job, cancel_requested=True)
    job.refresh_from_db()
    assert job.status == "cancelled" and job.finished_at is not None and job.cancel_requested
    with pytest.raises(JobCancelled):
        progress(2, 4)
    assert ProfileImport.objects.get(pk=job.pk).progress == 0.25  # nothing written once cancelled
    assert not cancel(job)  # already finished


def test_a_task_whose_job_was_cancelled_past_the_grace_is_terminated_softly_then_hard():
    _job("soft", "cancelled", ended_s_ago=3)
    _job("hard", "failed", ended_s_ago=10)
    _job("young", "cancelled", ended_s_ago=0.5)
    assert unanswered_tasks({"soft", "hard", "young"}, grace_s=2) == (["soft"], ["hard"])


def test_a_task_still_finishing_a_succeeded_job_or_with_a_part_still_going_is_left_alone():
    _job("finishing", "succeeded", ended_s_ago=60)  # e.g. a run's last replication computing the run's summary
    _job("batch", "cancelled", ended_s_ago=60)  # a batch: one part ended, another still runs under the same task
    _job("batch", "running")
    assert unanswered_tasks({"finishing", "batch"}, grace_s=2) == ([], [])
