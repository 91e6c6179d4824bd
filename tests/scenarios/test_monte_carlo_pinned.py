"""A small Monte Carlo run stores the summary it stored before the path was made faster, bit for bit.

The pins are the values the path gave before its speed-ups (collector paused during a replication, cheaper copies of
the drawn tasks, billing by column): a change that only makes the path faster leaves them exact.  A deliberate change
to the model or to the catalogue record moves them: pin the new values then, saying why, in the same commit.
"""

from __future__ import annotations

import pytest

from apps.platforms.models import Platform
from apps.scenarios.models import SimulationRun
from apps.scenarios.services import create_run, execute_replications
from apps.workloads.models import Workload

#: magnus x sdp-predict-p3 (the general stage model, queue waits and Lustre performance drawn per replication), 12
#: replications from seed 3, run in two batches as a worker runs them
PINNED = {
    "n": 12,
    "makespan_p10_s": "0x1.f64af511c6425p+17",
    "makespan_p50_s": "0x1.1a16a8250dba1p+19",
    "makespan_p90_s": "0x1.433a363becb6dp+20",
    "cost_p10_aud": "0x1.f09438785e274p+5",
    "cost_p50_aud": "0x1.1337d7960cd59p+6",
    "cost_p90_aud": "0x1.4db305c2ff354p+6",
}


@pytest.mark.django_db
def test_a_small_run_stores_the_pinned_summary_bit_for_bit(catalogue):
    run = create_run(platform=Platform.objects.get(slug="magnus"), workload=Workload.objects.get(slug="sdp-predict-p3"),
                     replications=12, seed=3)
    execute_replications(str(run.pk), list(range(6)))
    execute_replications(str(run.pk), list(range(6, 12)))
    run.refresh_from_db()
    assert run.status == SimulationRun.Status.SUCCEEDED
    stored = {k: v if isinstance(v, int) else float(v).hex() for k, v in run.results.items()}
    assert stored == PINNED
    # the replications differ (the draws reach the engine), so the pins say something about each of them
    assert len(set(run.replication_set.values_list("makespan_s", flat=True))) == 12
