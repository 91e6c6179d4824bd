"""Calibration: fio sets the host's disk; the sequential reader's profile calibrates a stage whose
simulated task then takes the measured time (within 10 %); applying it writes fitted provenance."""

from __future__ import annotations

import pytest

from apps.core.provenance import source_errors
from apps.profiles import adapters, services
from apps.profiles.models import Profile
from apps.workloads.models import WorkloadStage


def _import(samples, name, **kw) -> Profile:
    job = services.import_file(samples / name, **kw)
    assert job.status == "succeeded", job.error
    return job.profile


@pytest.fixture
def measured_host(this_host, samples):
    """The sample host with its disk set from the fio sample (measured, not assumed)."""
    fio = _import(samples, "fio_local.json")
    tier = this_host.storage_tiers.get()
    services.apply_tier_measurement(services.measure_tier(fio, tier, host="vm"))
    return this_host


def test_fio_sets_the_tier_with_measurement_provenance(this_host, samples):
    fio = _import(samples, "fio_local.json")
    tier = this_host.storage_tiers.get()
    m = services.measure_tier(fio, tier, host="vm")
    services.apply_tier_measurement(m)
    tier.refresh_from_db()
    # fio_local.json: seq-read 2497074009 B/s, seq-write 1807646168 B/s, rand-read 12183.76 IOPS (the best random job)
    assert tier.read_bw == pytest.approx(2497074009)
    assert tier.write_bw == pytest.approx(1807646168)
    assert tier.iops == pytest.approx(12183.763247)
    src = tier.provenance["read_bw"]
    assert src["kind"] == "measurement" and src["host"] == "vm" and src["date"] == "2026-11-22"
    assert "fio" in src["note"] and source_errors(src) == []
    tier.full_clean()


def test_a_shared_tier_gets_per_client_figures(catalogue, samples):
    fio = _import(samples, "fio_local.json")
    from apps.platforms.models import StorageTier

    tier = StorageTier.objects.get(platform__slug="magnus")
    aggregate = tier.read_bw
    m = services.measure_tier(fio, tier, host="vm")
    assert set(m.values) == {"read_bw_per_client", "write_bw_per_client", "iops_per_client", "latency"}
    services.apply_tier_measurement(m)
    tier.refresh_from_db()
    assert tier.read_bw == aggregate


def test_calibration_brings_the_simulated_task_within_ten_percent(catalogue, measured_host, samples):
    strace = _import(samples, "seq_read.strace")
    pidstat = _import(samples, "seq_read.pidstat.txt")
    stage = WorkloadStage.objects.get(workload__slug="adiosstman-validation", name="convert_to_adios")
    cal = services.calibrate(profiles=[strace, pidstat], stage=stage, platform=measured_host)
    measured = 16.413357 - 8.588807  # the strace's first and last time stamps
    assert cal.measured_s == pytest.approx(measured)
    assert abs(cal.error_before) > 0.10  # the catalogue's 45 GB conversion (69 core-s) is nothing like this run
    assert abs(cal.simulated_after_s - measured) <= 0.10 * measured
    # what the run did, not what was fitted: 10 GiB read sequentially, ~1.4 core-s of CPU, no random I/O
    assert cal.demands["seq_read_bytes"] >= 10 * 1024**3
    assert cal.demands["random_read_ops"] == 5  # the loader's preads at start-up
    assert 1.0 < cal.demands["cpu_seconds"] < 2.0
    assert cal.demands["peak_memory"] == 15880192
    # the fitted overhead is what the disk model does not explain: at least the 2 s the reader slept
    assert cal.demands["overhead"] >= 2.0


def test_applying_writes_the_demands_with_fitted_provenance(catalogue, measured_host, samples):
    strace = _import(samples, "seq_read.strace")
    pidstat = _import(samples, "seq_read.pidstat.txt")
    stage = WorkloadStage.objects.get(workload__slug="adiosstman-validation", name="convert_to_adios")
    cal = services.calibrate(profiles=[strace, pidstat], stage=stage, platform=measured_host)
    services.apply_calibration(cal)
    stage.refresh_from_db()
    assert stage.seq_read_bytes == cal.demands["seq_read_bytes"]
    src = stage.provenance["seq_read_bytes"]
    assert src["kind"] == "fitted"
    assert src["method"].startswith(f"fitted from profile {strace.pk} (seq_read.strace), {pidstat.pk} (seq_read.pidstat.txt)")
    assert stage.provenance_problems() == {}
    # the stage as stored now simulates to the measured time (read back from the database)
    spec = adapters.platform_spec(measured_host)
    again = adapters.simulate_stage_task(spec, stage.name, adapters.stage_facts(stage), node_type="vm",
                                         tier="virtio disk")
    assert abs(again - cal.measured_s) <= 0.10 * cal.measured_s


def test_a_samples_profile_alone_calibrates_with_what_it_has(catalogue, measured_host, samples):
    pidstat = _import(samples, "seq_read.pidstat.txt")
    stage = WorkloadStage.objects.get(workload__slug="adiosstman-validation", name="convert_to_adios")
    cal = services.calibrate(profiles=[pidstat], stage=stage, platform=measured_host)
    assert cal.measured_s == 7.0  # seven one-second samples
    assert cal.demands["random_read_ops"] == 0
    assert abs(cal.simulated_after_s - cal.measured_s) <= 0.10 * cal.measured_s


def test_a_fio_profile_cannot_calibrate_a_stage(catalogue, measured_host, samples):
    fio = _import(samples, "fio_local.json")
    stage = WorkloadStage.objects.get(workload__slug="adiosstman-validation", name="convert_to_adios")
    with pytest.raises(services.InvalidRequest, match="storage tier"):
        services.calibrate(profiles=[fio], stage=stage, platform=measured_host)



def test_a_stage_whose_task_continues_into_later_phases_is_not_calibrated_from_a_whole_task(catalogue, measured_host,
                                                                                           samples):
    """CHILES' SPLIT is one task of three phases (select, regrid, flag): a profile of the whole task cannot be laid
    on its first phase alone (the others would count their demands twice); the refusal names the phases."""
    strace = _import(samples, "seq_read.strace")
    split = WorkloadStage.objects.get(workload__slug="chiles-epoch1", name="split")
    assert services.later_phases(split) == ["split_regrid", "split_flag"]
    with pytest.raises(services.InvalidRequest, match="split_regrid, split_flag"):
        services.calibrate(profiles=[strace], stage=split, platform=measured_host)
    assert services.later_phases(WorkloadStage.objects.get(workload__slug="chiles-epoch1", name="concat")) == []
