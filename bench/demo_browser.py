"""The demo as a user sees it, in headless Chromium: click "Run the demo" → results page painted → radar drawn.

In a throwaway test database with the reference catalogue, a live server (this process, static files served; the
server ``make run`` runs, Django's, as ``manage.py serve`` sets it up: apps.core.devserver) and
one Celery worker with two processes (as ``make run`` starts it): a user signs in, opens the home page and clicks
the demo button; the browser follows to the scenario's results page, which shows its progress and then the ranked
results.  Per run it prints the time from the click to the results page's first contentful paint (the browser's
own ``first-contentful-paint`` entry, plus the navigation), to the radar chart drawn (its plotly SVG in the page),
to every chart and the validation in (the page streams them after the radar; the next click waits for them), the
load average, the first paint in its parts (``first_paint_ms``, from the browser's Navigation and Resource Timing
entries, in ms from the navigation's start, which is the POST's: the click to that start, the POST and its redirect,
the results page's request queued, its server time and its download, the HTML's size and when it was all in, the
DOM parsed, each render-blocking resource with where it came from (``cache``, ``304`` or its status) and when it was
in, the first paint, and the paint's lag after the last blocking byte), and a timeline: each request the page made, with its end in seconds after the click (the status
polls counted in one line).  ``--worker-log-level INFO`` logs each task and each part of the results the worker
saves, with its time, in ``var/bench-demo-worker.log``.  Targets (issue 19): results page first paint < 300 ms after its navigation starts, click →
radar < 2 s.  The first run is a warm-up (worker imports, catalogue fits) and is reported apart.

    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://... .venv/bin/python bench/demo_browser.py --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

from _django import ROOT, throwaway_database

PASSWORD = "bench-demo-password-1"  # a throwaway user in a throwaway database


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("no Chromium on PATH (the README's system packages install Debian's chromium)")


def _short(request, base: str) -> str:
    """A finished request as the timeline names it: method and path, the scenario's id cut out."""
    path = request.url.removeprefix(base).split("?")[0]
    parts = ["<id>" if len(p) == 36 and p.count("-") == 4 else p for p in path.split("/")]
    return f"{request.method} {'/'.join(parts)}"


def _timeline(events: list[tuple[float, str]], started: float) -> list[str]:
    """Each request finished since the click, with its end in seconds after the click; the status polls counted in
    one entry (their number, the first and the last)."""
    out, polls = [], []
    for at, name in events:
        if name.endswith("/status/"):
            polls.append(at - started)
        else:
            out.append(f"{at - started:.2f} {name}")
    if polls:
        out.append(f"{len(polls)} polls {polls[0]:.2f}..{polls[-1]:.2f}")
    return out


_FIRST_PAINT_JS = """() => new Promise(done => new PerformanceObserver((list, observer) => {
  if (list.getEntries().some(e => e.name === 'first-contentful-paint')) { observer.disconnect(); done(); }
}).observe({type: 'paint', buffered: true}))"""

# The results page's first paint in its parts, from the browser's own Navigation and Resource Timing entries (times in
# ms from the navigation's start, the POST's start, which is the page's time origin: the redirect is the POST).
_PAINT_PARTS_JS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint');
  const ms = x => Math.round(x * 10) / 10;
  const status = r => r.transferSize === 0 ? 'cache' : (r.responseStatus === 304 ? '304' : String(r.responseStatus));
  const blocking = performance.getEntriesByType('resource')
    .filter(r => r.renderBlockingStatus === 'blocking' && r.startTime < fcp.startTime)
    .map(r => ({name: new URL(r.name).pathname, start: ms(r.startTime), end: ms(r.responseEnd), from: status(r),
                bytes: r.transferSize}));
  return {
    post_and_redirect: nav.redirectEnd ? ms(nav.redirectEnd - nav.redirectStart) : null,
    redirect_count: nav.redirectCount,
    get_queued: ms(nav.requestStart - (nav.redirectEnd || nav.startTime)),
    get_server: ms(nav.responseStart - nav.requestStart),
    get_download: ms(nav.responseEnd - nav.responseStart),
    html_bytes: nav.decodedBodySize,
    html_in: ms(nav.responseEnd),
    dom_interactive: ms(nav.domInteractive),
    blocking: blocking,
    blocking_in: ms(Math.max(nav.responseEnd, ...blocking.map(r => r.end))),
    fcp: ms(fcp.startTime),
    time_origin: performance.timeOrigin,
  };
}"""


def _paint_parts(parts: dict, clicked_epoch_ms: float) -> dict:
    """The breakdown, with the click → navigation start in front and the paint's lag after the last blocking byte."""
    origin = parts.pop("time_origin")
    parts = {"click_to_post": round(origin - clicked_epoch_ms, 1), **parts}
    parts["paint_after_blocking"] = round(parts["fcp"] - parts["blocking_in"], 1)
    return parts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="timed demo clicks after one warm-up")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for one radar")
    parser.add_argument("--worker-log-level", default="WARNING", help="INFO logs each task with its time")
    parser.add_argument("--workload", help="run the demo on this workload instead (imported from "
                                           "fixtures/workloads/SLUG.json when the reference catalogue lacks it)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with throwaway_database():
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.contrib.staticfiles.handlers import StaticFilesHandler
        from django.db import connection
        from django.test.testcases import LiveServerThread

        from apps.core.devserver import NoDelayThreadedWSGIServer
        from apps.workloads.catalogue import load_catalogue

        class _LiveServer(LiveServerThread):  # serves as `make run` does (manage.py serve)
            server_class = NoDelayThreadedWSGIServer

        settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
        load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
        if args.workload:
            from apps.scenarios import services
            from apps.workloads.files import import_workloads
            from apps.workloads.models import Workload

            if not Workload.objects.filter(slug=args.workload).exists():
                import_workloads(ROOT / "fixtures" / "workloads" / f"{args.workload}.json")
            services.DEMO["workload"] = args.workload  # the live server runs in this process
        get_user_model().objects.create_user("bench-demo", password=PASSWORD)

        db = connection.settings_dict
        queue = "bench.demo"
        env = dict(os.environ, DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/"
                                            f"{db['NAME']}", CELERY_TASK_DEFAULT_QUEUE=queue)
        log_path = ROOT / "var" / "bench-demo-worker.log"
        log_path.parent.mkdir(exist_ok=True)
        log = open(log_path, "w")  # noqa: SIM115 - closed below
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "apps", "worker", "-Q", queue, "--pool=prefork", "--concurrency=2",
             f"--loglevel={args.worker_log_level}", "--without-mingle", "--without-gossip", "--without-heartbeat",
             "-n", "bench-demo@%h"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        os.environ["CELERY_TASK_DEFAULT_QUEUE"] = queue
        from apps.celery import app

        app.conf.task_default_queue = queue
        server = _LiveServer("127.0.0.1", StaticFilesHandler, port=0)
        server.daemon = True
        server.start()
        server.is_ready.wait()
        if server.error:
            raise server.error
        base = f"http://127.0.0.1:{server.port}"
        results = []
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.goto(f"{base}/accounts/login/")
                page.fill("input[name=username]", "bench-demo")
                page.fill("input[name=password]", PASSWORD)
                page.click("button[type=submit]")
                page.wait_for_load_state()
                events: list[tuple[float, str]] = []
                page.on("requestfinished", lambda req: events.append((time.perf_counter(), _short(req, base))))
                for i in range(args.runs + 1):
                    if worker.poll() is not None:
                        raise RuntimeError(f"the worker exited, see {log_path}")
                    page.goto(f"{base}/")
                    load = os.getloadavg()[0]
                    events.clear()
                    clicked_epoch_ms = page.evaluate("performance.timeOrigin + performance.now()")
                    started = time.perf_counter()
                    page.click("#home-demo")
                    page.wait_for_url("**/scenarios/*/", timeout=args.timeout * 1000)
                    # waits written as page functions or selectors: a string predicate is compiled in the page,
                    # which its content security policy forbids (an EvalError, now and then)
                    page.evaluate(_FIRST_PAINT_JS)
                    painted = time.perf_counter()
                    fcp_ms = page.evaluate(
                        "performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint')"
                        ".startTime")
                    parts = _paint_parts(page.evaluate(_PAINT_PARTS_JS), clicked_epoch_ms)
                    page.wait_for_selector("#radar .main-svg", timeout=args.timeout * 1000)
                    drawn = time.perf_counter()
                    # every part in (charts, validation): the next click does not share the machine with this one
                    page.wait_for_selector('#scenario-status[data-finished="1"]', state="attached",
                                           timeout=args.timeout * 1000)
                    page.wait_for_selector("#fig-gantt .main-svg", timeout=args.timeout * 1000)
                    page.wait_for_selector("[data-pending]", state="detached", timeout=args.timeout * 1000)
                    complete = time.perf_counter()
                    row = {"run": i, "warm_up": i == 0, "click_to_results_paint_s": round(painted - started, 3),
                           "results_page_fcp_ms": round(fcp_ms, 1), "click_to_radar_s": round(drawn - started, 3),
                           "click_to_every_chart_s": round(complete - started, 3),
                           "load_average": round(load, 2), "first_paint_ms": parts,
                           "timeline": _timeline(events, started)}
                    results.append(row)
                    print(json.dumps(row), flush=True)
                browser.close()
        finally:
            server.terminate()
            worker.terminate()
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
            log.close()
        timed = [r for r in results if not r["warm_up"]]
        if timed:
            print(json.dumps({
                "runs": len(timed),
                "click_to_radar_s_median": round(statistics.median(r["click_to_radar_s"] for r in timed), 3),
                "results_page_fcp_ms_median": round(statistics.median(r["results_page_fcp_ms"] for r in timed), 1),
                "targets": {"click_to_radar_s": "< 2", "results_page_fcp_ms": "< 300"}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
