"""Every page a user reaches from the navigation, in headless Chromium at 1400 and 400 px: nothing wider than the
window (the page, and each table and form), no text overlapping other text, the page's answer or primary action above the fold, no console error,
no raw Python data on screen, the navigation saying where the user is, and every page reachable from it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from apps.scoring.logic.aggregate import METHODS, method_label
from tests.ui.test_results_pages import CLIPPED_CAPTIONS, OVERLAPS

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"
WIDTHS = (1400, 400)
FOLD_PX = 900

#: the page's own boxes wider than the window: the document, then each table (or its scrolling wrapper) and form
MEASURE = """() => {
  const width = window.innerWidth;
  const wide = [];
  const boxes = Array.from(document.querySelectorAll('main table, main form, main fieldset, main pre, main .chart'));
  for (const el of boxes) {
    const box = (el.closest('.scroll') || el).getBoundingClientRect();
    if (box.width > 0 && (box.right > width + 0.5 || box.left < -0.5)) {
      wide.push(`${el.tagName.toLowerCase()}#${el.id || ''}.${el.className || ''}: ${Math.round(box.left)}–${Math.round(box.right)}`);
    }
  }
  if (document.documentElement.scrollWidth > width) {  // name the outermost elements that stick out
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect(), p = el.parentElement.getBoundingClientRect();
      if (r.right > width + 0.5 && p.right <= width + 0.5 && wide.length < 12) {
        wide.push(`${el.tagName.toLowerCase()}#${el.id || ''}.${el.className || ''} in ${el.parentElement.tagName.toLowerCase()}.${el.parentElement.className}: ${Math.round(r.left)}–${Math.round(r.right)}`);
      }
    }
  }
  const nav = Array.from(document.querySelectorAll('header a[href^="/"]')).map(a => ({
    href: a.getAttribute('href'), current: a.getAttribute('aria-current')}));
  const links = Array.from(document.querySelectorAll('main a[href^="/"]')).map(a => a.getAttribute('href'));
  return {width, scroll: document.documentElement.scrollWidth, wide, nav, links};
}"""

#: pages showing a worker's result once it is computed -> an element only the computed page has
READY = {"score": "#robustness-table"}
#: how long a worker may take to compute such a page (the scoring report simulates every platform's epoch)
READY_TIMEOUT_MS = 240_000

#: where an element starts, in page pixels (the fold is the first FOLD_PX of the page)
TOP = "(sel) => { const el = document.querySelector(sel); return el ? el.getBoundingClientRect().top + scrollY : null; }"

RAW = ("{'", "[{'")

#: the page's visible text, SVG labels and the choices of drop-down lists included, without what is code or typed by
#: the user (code, pre, inputs)
VISIBLE_TEXT = """() => {
  const hidden = Array.from(document.querySelectorAll('code, pre, input, textarea, script, style'));
  const was = hidden.map(el => el.style.display);
  hidden.forEach(el => { el.style.display = 'none'; });
  const svg = Array.from(document.querySelectorAll('svg text, main select option')).map(t => t.textContent);
  const text = document.body.innerText;
  hidden.forEach((el, i) => { el.style.display = was[i]; });
  return [text, ...svg].join('\\n');
}"""

#: every choice of every drop-down list on the page: its value and the text it shows
OPTIONS = "() => Array.from(document.querySelectorAll('main select option')).map(o => [o.value, o.textContent.trim()])"

#: a URL or a path on the site, which may spell a slug
URL = re.compile(r"\b[a-z]+://\S+|(?<!\S)/\S*")
#: a name built like an identifier: lower-case words joined by "_" or "-"
IDENTIFIER = re.compile(r"^[a-z0-9]+(?:[_-][a-z0-9]+)+$")

#: every cartesian axis of every plotly chart: type, whether it shows tick labels, its title and tick values
AXES = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).flatMap(el => {
  const layout = el._fullLayout || {};
  return Object.keys(layout).filter(k => /^[xy]axis\\d*$/.test(k)).map(k => {
    const ax = layout[k];
    return {chart: el.id, axis: k, type: ax.type, ticks: !!ax.showticklabels && ax.visible !== false,
            title: (ax.title && ax.title.text) || '', values: (ax._vals || []).map(v => v.x)};
  });
})"""
#: a unit in parentheses or brackets: "time (h)", "cost [AUD]"
UNIT = re.compile(r"\([^()]*[^()\s][^()]*\)|\[[^\[\]]*[^\[\]\s][^\[\]]*\]")
#: a title naming a rank or a score, which has no unit
UNITLESS = re.compile(r"\b(?:rank|score|share|fraction)", re.IGNORECASE)


def axis_problems(axis: dict) -> list[str]:
    """An axis showing numbers has a title; the title of a quantity names its unit.  Categories (platform names)
    need neither; a fraction (ticks within 0..1) or a rank or score (so titled) needs no unit."""
    if not axis["ticks"] or axis["type"] not in ("linear", "log"):
        return []
    title = axis["title"].strip()
    if not title:
        return [f"{axis['chart']} {axis['axis']}: numbers without a title"]
    values = axis["values"]
    if UNIT.search(title) or values and all(0 <= v <= 1 for v in values) or UNITLESS.search(title):
        return []
    return [f"{axis['chart']} {axis['axis']}: \"{title}\" names no unit"]


def catalogue_identifiers() -> set[str]:
    """Every slug and name the catalogue holds that is built like an identifier (lower-case words joined by "_" or
    "-"): platform and workload slugs, stage names, node types, storage tiers, choice values of the catalogue
    models, criterion keys, aggregation methods, reference observations' keys, the quantities the validation
    computes, the storage systems, libraries and experiments of the I/O benchmark file and a strace's access
    classes.  A one-word slug ("magnus") is its platform's name in lower case, not an identifier a reader would
    trip on."""
    from django.conf import settings

    from apps.platforms.models import NodeType, Platform, StorageTier
    from apps.profiles.parsers.strace import CLASSES
    from apps.scoring.models import Criterion
    from apps.workloads.models import ReferenceObservation, Workload, WorkloadStage
    from simulator.model.validation import ALIASES

    slugs = {*Platform.objects.values_list("slug", flat=True), *Workload.objects.values_list("slug", flat=True)}
    names = {*WorkloadStage.objects.values_list("name", flat=True), *NodeType.objects.values_list("name", flat=True),
             *NodeType.objects.values_list("default_stage", flat=True),
             *StorageTier.objects.values_list("name", flat=True), *Criterion.objects.values_list("key", flat=True),
             *METHODS, *CLASSES, *ALIASES}
    io = json.loads((Path(settings.SKYPLAN_CATALOGUE_DIR) / "io_benchmarks.json").read_text())
    names |= {*(s["slug"] for s in io["storage"]), *(lib["slug"] for lib in io["libraries"]),
              *(e["key"] for e in io["experiments"])}
    for key, quantity, fit in ReferenceObservation.objects.values_list("key", "quantity", "fit"):
        names |= {quantity, fit, *key.split(".")}
    for model in (Platform, NodeType, StorageTier, Workload, WorkloadStage):
        for field in model._meta.get_fields():
            names |= {str(value) for value, _ in getattr(field, "choices", None) or ()}
    return {name for name in slugs | names if IDENTIFIER.match(name)}


def identifiers_in(text: str, identifiers: set[str]) -> list[str]:
    """The identifiers standing as whole words in ``text`` once URLs and paths are taken out."""
    text = URL.sub(" ", text)
    found = re.findall(r"(?<![\w.-])(" + "|".join(map(re.escape, sorted(identifiers, key=len, reverse=True)))
                       + r")(?![\w-]|\.\w)", text)
    return sorted(set(found))


@pytest.fixture
def site(celery_worker_process, live_server, django_user_model):
    """The reference catalogue, a user, two profiles of one run in the user's workspace, a calibration from them and a
    worker (which computes the scoring page's report)."""
    from django.conf import settings

    from apps.accounts.workspaces import personal_workspace
    from apps.profiles import services as profiles
    from apps.workloads.catalogue import load_catalogue
    from apps.workloads.models import WorkloadStage
    from tests.profiles.conftest import SAMPLES

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    user = django_user_model.objects.create_user(username="grace", password=PASSWORD)
    mine = personal_workspace(user)
    strace = profiles.import_file(SAMPLES / "seq_read.strace", workspace=mine).profile
    pidstat = profiles.import_file(SAMPLES / "seq_read.pidstat.txt", workspace=mine).profile
    stage = WorkloadStage.objects.get(workload__slug="adiosstman-validation", name="convert_to_adios")
    from apps.platforms.models import Platform

    cal = profiles.calibrate(profiles=[strace, pidstat], stage=stage, platform=Platform.objects.get(slug="magnus"),
                             user=user)
    from apps.benchmarks.services import create_benchmark

    queued = create_benchmark(platform=Platform.objects.get(slug="pleiades"), kind="cpu", user=user)  # never sent
    return {"url": live_server.url, "profile": strace, "calibration": cal, "benchmark": queued}


def _pages(site) -> dict[str, tuple[str, str, str]]:
    """name -> (path, selector of the answer or primary action that must start above the fold, the header link
    marked as the current page)."""
    return {
        "home": ("/", "#home-demo", "/"),
        "platforms": ("/platforms/", "main table", "/platforms/"),
        "platform": ("/platforms/magnus/", "main h1", "/platforms/"),
        "workloads": ("/workloads/", "main table", "/workloads/"),
        "workload": ("/workloads/chiles-epoch1/", "main h1", "/workloads/"),
        "workload-new": ("/workloads/new/", "main form", "/workloads/"),
        "workload-import": ("/workloads/import/", "main form", "/workloads/"),
        "platform-new": ("/platforms/new/", "main form", "/platforms/"),
        "observations": ("/workloads/reference-observations/", "main table", "/validation/"),
        "scenarios": ("/scenarios/", "#run-demo", "/scenarios/"),
        "builder": ("/scenarios/new/", "main form", "/scenarios/"),
        "simulations": ("/runs/", "main form", "/scenarios/"),
        "profiles": ("/profiles/", "#upload-form", "/profiles/"),
        "profile": (site["profile"].get_absolute_url(), "main h1", "/profiles/"),
        "calibration": (site["calibration"].get_absolute_url(), "main h1", "/profiles/"),
        "measurements": ("/profiles/tier-measurements/", "main h1", "/profiles/"),
        "validation": ("/validation/", "#met-count", "/validation/"),
        "scoring": ("/scoring/", "main h1", "/scoring/"),
        "criteria": ("/scoring/criteria/", "main table", "/scoring/"),
        "searches": ("/scoring/searches/", "main form", "/scoring/"),
        "benchmarks": ("/benchmarks/", "main form", "/benchmarks/"),
        "benchmark": (site["benchmark"].get_absolute_url(), "#no-host", "/benchmarks/"),
        "score": ("/scoring/workloads/chiles-epoch1/", "main h1", "/scoring/"),  # checked once computed (READY)
        "workspaces": ("/accounts/workspaces/", "main h1", "/accounts/workspaces/"),
    }


def test_every_page_fits_1400_and_400_px_with_its_answer_above_the_fold_and_no_console_error(log_in, site,
                                                                                             screenshot):
    pages = _pages(site)
    identifiers = catalogue_identifiers()
    problems: list[str] = []
    header: set[str] = set()
    links: dict[str, set[str]] = {}
    for width in WIDTHS:
        context, page, errors = log_in(site["url"], "/", width, height=FOLD_PX)
        try:
            for name, (path, primary, section) in pages.items():
                errors.clear()
                page.goto(site["url"] + path)
                if name in READY:  # the page polls its job and reloads when the worker is done: check what it shows then
                    page.wait_for_selector(READY[name], timeout=READY_TIMEOUT_MS)
                page.wait_for_load_state("networkidle")
                where = f"{name} at {width} px"
                screenshot(page, f"pages-{name}-{width}")
                m = page.evaluate(MEASURE)
                if m["scroll"] > m["width"]:
                    problems.append(f"{where}: page {m['scroll']} px wide in a {m['width']} px window")
                problems += [f"{where}: wider than the window: {w}" for w in m["wide"]]
                top = page.evaluate(TOP, primary)
                if top is None or top > FOLD_PX:
                    problems.append(f"{where}: {primary} starts at {top} px, below the {FOLD_PX} px fold")
                problems += [f"{where}: overlapping text {pair}" for pair in page.evaluate(OVERLAPS)]
                problems += [f"{where}: caption cut off by its table's scrolling: {c}"
                             for c in page.evaluate(CLIPPED_CAPTIONS)]
                if errors:
                    problems.append(f"{where}: console errors {errors}")
                text = page.inner_text("main")
                problems += [f"{where}: raw data on screen: …{text[max(0, text.index(raw) - 40):text.index(raw) + 40]}…"
                             for raw in RAW if raw in text]
                problems += [f"{where}: identifier on screen: {found}"
                             for found in identifiers_in(page.evaluate(VISIBLE_TEXT), identifiers)]
                problems += [f"{where}: axis {p}" for axis in page.evaluate(AXES) for p in axis_problems(axis)]
                problems += [f"{where}: the method {value} offered as \"{text}\", not \"{method_label(value)}\""
                             for value, text in page.evaluate(OPTIONS)
                             if value in METHODS and text != method_label(value)]
                current = [a["href"] for a in m["nav"] if a["current"] == "page"]
                if current != [section]:
                    problems.append(f"{where}: the header marks {current} as the current page, not {section}")
                header |= {a["href"] for a in m["nav"]}
                links.setdefault(urlsplit(page.url).path, set()).update(urlsplit(h).path for h in m["links"])
        finally:
            context.close()
    reachable, frontier = set(), set(header)
    while frontier:  # the pages reached from the header's links, then from those pages' links, and so on
        reachable |= frontier
        frontier = set().union(*(links.get(p, set()) for p in frontier)) - reachable
    problems += [f"{name}: not reachable from the navigation" for name, (path, _, _) in pages.items()
                 if path not in reachable]
    assert not problems, "\n".join(problems)
