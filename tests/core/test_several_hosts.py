"""Several hosts for real: a web host and, on a second host (its own network, mount, UTS and PID namespaces,
reached through a veth pair; no shared disk), the only worker — PostgreSQL, Redis and an S3-compatible store
(moto's server) on the veth address, the worker with the least-privilege database role and Redis user of
docs/hosts.md and no DJANGO_SECRET_KEY.  Everything a user does happens on the web host over HTTP: a scenario, a
search, every report format downloaded, a profile uploaded through the page and the API and its file downloaded,
a benchmark whose profile file is downloadable, and the worker SIGKILLed (the job ends failed naming it; after a
restart the next job finishes).  At the end the store holds exactly the files the database names, and nothing of
the worker host is left.  The same runs on one host with the local file system (the embedded default).

Slow by nature (it starts PostgreSQL, Redis, moto, gunicorn and Celery and migrates a database): about 70 s per
variant on this 2-core machine with little else running (2026-11-27), 4 to 7 min at load averages of 10 to 16
(set-up 80-230 s, the user's steps 135-240 s).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import psycopg
import pytest
from private_servers import servers_available
from two_hosts import namespaces_unavailable, running_hosts, wait_gone
from worker_processes import wait_for

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "fixtures" / "profiles"
MAGIC = {"pdf": b"%PDF", "csv": b"PK", "xlsx": b"PK", "html": b"<!DOCTYPE html", "json": b"{"}


@pytest.fixture(params=["two-hosts-s3", "one-host-local"])
def hosts(request):
    why = servers_available()
    if why:
        pytest.skip(why)
    two = request.param == "two-hosts-s3"
    if two:
        why = namespaces_unavailable()
        if why:
            pytest.skip(f"the second host needs network namespaces: {why}")
    with running_hosts(two_hosts=two) as h:
        yield h


def _db_files(hosts) -> set[str]:
    with psycopg.connect(hosts.pg.url("skyplan")) as conn:
        rows = conn.execute("SELECT file FROM reports_report WHERE file <> '' UNION "
                            "SELECT file FROM profiles_profile WHERE file <> ''").fetchall()
    return {r[0] for r in rows}


def _stored_files(hosts) -> set[str]:
    if hosts.two_hosts:
        import boto3

        s3 = boto3.client("s3", endpoint_url=hosts.s3_endpoint, region_name="us-east-1",
                          aws_access_key_id="skyplan", aws_secret_access_key="skyplan-secret")
        return {o["Key"] for o in s3.list_objects_v2(Bucket=hosts.bucket).get("Contents", [])}
    media = hosts.base / "web" / "var" / "media"
    return {str(p.relative_to(media)) for p in media.rglob("*") if p.is_file()}


def _scenario(hosts) -> str:
    created = hosts.post("/api/v1/scenarios/", json={
        "name": "Two hosts", "workload": "chiles-epoch1", "replications": 1, "seed": 7,
        "platforms": [{"platform": "pleiades"}, {"platform": "aws-sydney"}]})
    assert created.status_code == 201, created.text
    scenario = created.json()["id"]
    assert hosts.post(f"/api/v1/scenarios/{scenario}/run/").status_code == 202
    status = hosts.poll(f"/api/v1/scenarios/{scenario}/status/", timeout=240)
    assert status["status"] == "succeeded", status
    return scenario


def _search(browser, hosts) -> None:
    page = browser.post("/scoring/searches/", {"workload": "chiles-epoch1", "platform": "aws-sydney", "seed": "0",
                                       "space": '{"stages": {"split": {"nodes": [20, 40]}}}', "deadline_h": "96",
                                       "budget_aud": "500"})
    assert page.status_code == 302, page.text[:2000]
    status = wait_for(lambda: (lambda b: b if b["finished"] else None)(browser.get(f"{page.headers['Location']}status/")
                                                                        .json()), 240, "the search", interval=0.5)
    assert status["status"] == "succeeded" and status["done"] == status["total"] == 2, status


def _reports(hosts, scenario: str) -> None:
    requested = {fmt: hosts.post("/api/v1/reports/", json={"scenario": scenario, "format": fmt}).json()
                 for fmt in MAGIC}
    for fmt, report in requested.items():
        done = hosts.poll(report["url"], timeout=240)
        assert done["status"] == "succeeded", f"{fmt}: {done['error']}"
        download = hosts.get(done["download"])
        assert download.status_code == 200, download.text[:500]
        assert download.content[:20].lower().startswith(MAGIC[fmt].lower()) and "attachment" in download.headers["Content-Disposition"]
        assert int(download.headers["Content-Length"]) == len(download.content)


def _download_profile_of(hosts, import_url: str, expected: bytes | None) -> bytes:
    job = hosts.poll(import_url, timeout=180)
    assert job["status"] == "succeeded", job
    profile = hosts.get(f"/api/v1/profiles/{job['profile']}/").json()
    file = hosts.get(profile["file_url"])
    assert file.status_code == 200 and "attachment" in file.headers["Content-Disposition"]
    if expected is not None:
        assert file.content == expected
    return file.content


def _uploads(hosts, browser) -> None:
    sample = SAMPLES / "seq_read.strace"
    with open(sample, "rb") as fh:
        page = browser.post("/profiles/", {"format": "auto"}, files={"files": ("seq_read.strace", fh)})
    assert page.status_code == 302 and "/profiles/imports/" in page.headers["Location"], page.text[:2000]

    def imported():
        body = browser.get(f"{page.headers['Location']}status/").json()
        return body if body["finished"] else None

    status = wait_for(imported, 180, "the page's upload to be imported", interval=0.5)
    assert status["status"] == "succeeded", status
    file = browser.get(status["profile_url"] + "file/")
    assert file.status_code == 200 and file.content == sample.read_bytes()

    sample = SAMPLES / "fio_local.json"
    with open(sample, "rb") as fh:
        job = hosts.post("/api/v1/profiles/imports/", files={"file": ("fio_local.json", fh)}, data={"format": "auto"})
    assert job.status_code == 202, job.text
    _download_profile_of(hosts, job.json()["url"], sample.read_bytes())


def _benchmark(hosts) -> None:
    run = hosts.post("/api/v1/benchmarks/", json={"platform": hosts.bench_slug, "kind": "minipipeline",
                                                  "parameters": {"size_mb": 32, "n_days": 1, "n_subbands": 2}})
    assert run.status_code == 202, run.text
    status = hosts.poll(f"/api/v1/benchmarks/{run.json()['id']}/status/", timeout=240)
    assert status["status"] == "succeeded", status
    results = hosts.get(f"/api/v1/benchmarks/{run.json()['id']}/results/").json()
    assert results["host"]["hostname"] == ("skyplan-worker-host" if hosts.two_hosts else os.uname().nodename)
    [import_id] = results["result"]["profile_imports"]
    content = _download_profile_of(hosts, f"/api/v1/profiles/imports/{import_id}/", None)
    assert content.splitlines()[0] == results["result"]["samples_csv"].splitlines()[0].encode()


def _kill_the_worker(hosts) -> None:
    worker = hosts.workers[-1]
    run = hosts.post("/api/v1/benchmarks/", json={"platform": hosts.bench_slug, "kind": "storage",
                                                  "parameters": {"size_mb": 16, "runtime_s": 5, "max_jobs": 8}}).json()
    wait_for(lambda: hosts.get(f"/api/v1/benchmarks/{run['id']}/status/").json()["status"] == "running", 120,
             "the storage benchmark to start")
    pids = [worker.main_pid, *worker.pool_pids()]
    os.kill(worker.main_pid, signal.SIGKILL)
    if not hosts.two_hosts:  # on the second host the kernel ends its PID namespace with its first process
        for pid in worker.pool_pids():
            os.kill(pid, signal.SIGKILL)
    worker.proc.wait(timeout=30)
    wait_gone(pids)
    if hosts.two_hosts:
        wait_for(lambda: not hosts.veth.pids(), 20, "every process of the second host to be gone")
    started = time.monotonic()
    hosts.start_worker()
    status = hosts.poll(f"/api/v1/benchmarks/{run['id']}/status/", timeout=120)
    assert status["status"] == "failed" and f"worker {worker.node} lost at " in status["error"], status
    assert time.monotonic() - started < 120
    after = hosts.post("/api/v1/benchmarks/", json={"platform": hosts.bench_slug, "kind": "cpu",
                                                    "parameters": {"seconds": 1}}).json()
    assert hosts.poll(f"/api/v1/benchmarks/{after['id']}/status/", timeout=120)["status"] == "succeeded"


def test_everything_a_user_does_works_from_the_web_host(hosts):
    browser = hosts.browser()
    if hosts.two_hosts:  # the worker host sees none of the web host's files, and has no secret key
        worker = hosts.workers[0]
        assert os.listdir(f"/proc/{worker.main_pid}/root{hosts.base / 'web'}") == []
        environ = Path(f"/proc/{worker.main_pid}/environ").read_bytes().split(b"\0")
        assert not any(e.startswith(b"DJANGO_SECRET_KEY=") for e in environ)
    scenario = _scenario(hosts)
    _search(browser, hosts)
    _reports(hosts, scenario)
    _uploads(hosts, browser)
    _benchmark(hosts)
    _kill_the_worker(hosts)

    # nothing orphaned: the store holds exactly the files the database names (no upload of a failed or finished
    # import, no sentinel), no copy is left in the worker's temporary directory, and in two-host mode nothing was
    # written on the web host's or the worker's own disk
    assert _stored_files(hosts) == _db_files(hosts)
    assert not [p for p in (hosts.base / "worker" / "tmp").iterdir() if p.name.startswith("skyplan-copy-")]
    if hosts.two_hosts:
        assert not (hosts.base / "web" / "var" / "media").exists()
        assert not (hosts.base / "worker" / "var" / "media").exists()
    for worker in hosts.workers:
        hosts.stop_worker(worker)
    if hosts.two_hosts:
        assert hosts.veth.pids() == []
