"""A benchmark travels to a real worker consuming the platform's queue and comes back as measured values."""

import json
import time

import pytest
from django.core.management import CommandError, call_command

from apps.benchmarks import services
from apps.benchmarks.models import BenchmarkRun
from apps.platforms.models import Platform, StorageTier


def _platform(slug):
    p = Platform.objects.create(slug=slug, name=f"candidate host {slug}", kind="owned_cluster")
    StorageTier.objects.create(platform=p, name="local scratch", kind="local_ssd")
    return p


def _wait(run, timeout=180):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.is_finished:
            return run
        time.sleep(0.3)
    raise AssertionError(f"benchmark stuck at {run.status} {run.progress:.2f}")


def test_parameters_are_bounded_and_named(db):
    with pytest.raises(services.InvalidBenchmark, match="kind: 'shell'"):
        services.clean_parameters("shell", {})
    with pytest.raises(services.InvalidBenchmark, match=r"parameters: unknown command"):
        services.clean_parameters("storage", {"command": "rm -rf /"})
    with pytest.raises(services.InvalidBenchmark, match=r"parameters.size_mb: must be between 16 and 65536"):
        services.clean_parameters("storage", {"size_mb": 1})
    with pytest.raises(services.InvalidBenchmark, match="parameters.directory: must be an absolute path"):
        services.clean_parameters("storage", {"directory": "relative/dir"})
    assert services.clean_parameters("cpu", {}) == {"seconds": 2}


def test_the_form_explains_bad_input_and_saves_nothing(logged_in, db):
    _platform("form-host")
    response = logged_in.post("/benchmarks/", {"platform": "form-host", "kind": "minipipeline", "size_mb": "5",
                                               "n_days": "4", "n_subbands": "4"})
    body = response.content.decode()
    assert response.status_code == 200
    assert "Size (MiB): Ensure this value is greater than or equal to 16." in body
    response = logged_in.post("/benchmarks/", {"platform": "form-host", "kind": "minipipeline", "size_mb": "64",
                                               "n_days": "4", "n_subbands": "4"})
    assert "must differ from n_days" in response.content.decode()
    assert not BenchmarkRun.objects.exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_storage_and_minipipeline_benchmarks_run_on_the_platforms_worker(bench_worker, client, django_user_model):
    platform = _platform(bench_worker["platform_slug"])
    user = django_user_model.objects.create_user("bench", password="x")
    client.force_login(user)
    assert bench_worker["platform_slug"] in client.get("/benchmarks/").content.decode()  # the host is online

    client.post("/benchmarks/", {"platform": platform.slug, "kind": "storage", "size_mb": "32", "runtime_s": "1",
                                 "max_jobs": "2"})
    storage = _wait(BenchmarkRun.objects.get(kind="storage"))
    assert storage.status == "succeeded", storage.error
    assert storage.host["hostname"] and storage.host["cores"] >= 1
    values = {v.name: v.value for v in storage.measured_values.all()}
    assert values["read_bw_per_client"] > 0 and values["write_bw_per_client"] > 0
    assert values["iops_per_client"] * 4096 < values["read_bw_per_client"]  # random 4 KiB < sequential bytes/s
    assert {p["jobs"] for p in storage.result["points"]} == {1, 2}

    tier = platform.storage_tiers.get()
    # the reference catalogue is shared and read-only: a maintainer (staff) applies measurements to it
    assert client.post(f"/benchmarks/{storage.id}/apply/", {"tier": tier.pk}).status_code == 403
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    response = client.post(f"/benchmarks/{storage.id}/apply/", {"tier": tier.pk})
    assert response.status_code == 302
    tier.refresh_from_db()
    assert tier.read_bw_per_client == pytest.approx(values["read_bw_per_client"])
    assert tier.provenance["read_bw_per_client"]["kind"] == "measurement"
    assert tier.provenance["read_bw_per_client"]["host"] == storage.host["hostname"]

    # or a new platform from this host, in the user's workspace: its node and the tier measured, each with a source
    response = client.post(f"/benchmarks/{storage.id}/new-platform/")
    made = Platform.objects.get(copied_from=None, workspace__isnull=False, slug__endswith="-measured")
    assert response.status_code == 302 and response["Location"] == made.get_absolute_url()
    node, made_tier = made.node_types.get(), made.storage_tiers.get()
    assert node.cores == storage.host["usable_cores"] and node.memory == storage.host["memory_bytes"]
    assert made_tier.read_bw_per_client == pytest.approx(values["read_bw_per_client"])
    assert made_tier.provenance["read_bw_per_client"]["host"] == storage.host["hostname"]
    assert node.provenance["cores"]["kind"] == "measurement" and made_tier.provenance["scope"]["kind"] == "assumption"
    for obj in (made, node, made_tier):
        obj.full_clean()  # every fact with a value has a valid source
    assert made.name in client.get(made.get_absolute_url()).content.decode()

    client.post("/benchmarks/", {"platform": platform.slug, "kind": "minipipeline", "size_mb": "48", "n_days": "3",
                                 "n_subbands": "2", "strace": "on"})
    mini = _wait(BenchmarkRun.objects.get(kind="minipipeline"))
    assert mini.status == "succeeded", mini.error
    measured, predicted = mini.result["measured"], mini.result["predicted"]
    assert measured["makespan_s"] > 0 and predicted["sequential_s"] > 0
    stage_sum = sum(s["end_s"] - s["start_s"] for s in measured["stages"].values())
    assert stage_sum == pytest.approx(measured["makespan_s"], rel=0.05)  # stages run back to back
    assert mini.result["samples_csv"].startswith("Time stamp,Total CPU %")
    page = client.get(mini.get_absolute_url()).content.decode()
    assert "Model vs measurement" in page and 'id="bench-chart-data"' in page
    for stage in ("copy", "split", "invert", "concat"):  # one row per stage with its predicted parts
        assert f'<th scope="row">{stage}</th>' in page
    assert "split:write" not in page and "write " in page and "compute " in page
    # its profiles: the 1 Hz samples of the timed run and the strace trace of an untimed one, imported and analysed
    deadline = time.monotonic() + 120
    while not all(j.is_finished for j in services.profile_imports(mini)) and time.monotonic() < deadline:
        time.sleep(0.5)
    jobs = services.profile_imports(mini)
    page = client.get(mini.get_absolute_url()).content.decode()
    assert [j.format for j in jobs] == ["chiles_csv", "strace"]
    assert all(j.status == "succeeded" and j.profile for j in jobs), [j.error for j in jobs]
    trace = jobs[1].profile
    assert trace.platform == platform and trace.summary["duration_s"] > 0
    assert trace.summary["write_bytes"] >= 48 * 2**20  # every byte the pipeline wrote is in the trace
    assert all(j.profile.get_absolute_url() in page for j in jobs)
    if measured["at_rest"]["free_page_reporting"]:  # this VM: the run started from memory at rest, and says so
        assert measured["at_rest"]["drain"]["bytes"] > 0 and "memory at rest" in page


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_the_cli_runs_a_cpu_benchmark_and_names_unknown_platforms(bench_worker, capsys):
    _platform(bench_worker["platform_slug"])
    call_command("run_benchmark", "--platform", bench_worker["platform_slug"], "--kind", "cpu",
                 "--param", "seconds=1", "--format", "json", "--timeout", "120")
    out = json.loads(capsys.readouterr().out)
    names = {v["name"] for v in out["measured_values"]}
    assert names == {"grid_vis_per_s", "fft_cells_per_s", "regrid_values_per_s"}
    assert all(v["source"]["kind"] == "measurement" for v in out["measured_values"])
    with pytest.raises(CommandError, match="no platform 'nowhere'"):
        call_command("run_benchmark", "--platform", "nowhere", "--kind", "cpu")


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_benchmark_on_a_missing_directory_fails_with_the_reason(bench_worker):
    platform = _platform(bench_worker["platform_slug"])
    run = services.create_benchmark(platform=platform, kind="storage",
                                    parameters={"directory": "/nonexistent/skyplan", "size_mb": 16, "runtime_s": 1})
    services.dispatch(run)
    run = _wait(run)
    assert run.status == "failed"
    assert "directory '/nonexistent/skyplan' does not exist on this host" in run.error
