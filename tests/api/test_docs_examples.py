"""Docs that run: every HTTP request example of docs/api.md and README.md is executed, in document order, against a
live server with a real Celery worker, and each request must answer 2xx; work it starts must finish and succeed.

The examples are written two ways, both read strictly (a block this module cannot run fails, naming the document
and the line):

- a fenced ``sh`` block with ``curl`` commands: the block runs as written, in bash (``set -euo pipefail``), with
  real ``curl`` and ``jq``; ``http://127.0.0.1:8000`` (``make run``'s address) becomes the live server's.  Every
  curl call must answer 2xx (``--fail-with-body``), and a curl line whose comment says ``# poll until "KEY": VALUE``
  is repeated until the answer's KEY is VALUE, its ``status`` then being ``succeeded``.  ``.venv/bin/python
  manage.py …`` lines run the project's own commands on the test database.
- a fenced ``json`` (or ``http``) block whose first line is ``METHOD /api/v1/…`` and the rest a JSON body: sent
  with the token of the ``$H`` an earlier example set.

Shell variables carry ids from one example to the next (``ID=$(curl … | jq -r .id)``, then ``$API/scenarios/$ID/``).
Each document's examples share one bash session; the world they assume is built here: the demo account (staff, as
``make run`` makes it) with ``$PASSWORD``, a "Survey team" workspace where demo is an editor, and a user grace.
At the end every job the examples started (simulation runs, reports, profile imports) has finished and succeeded.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.worker_processes import wait_for

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ("docs/api.md", "README.md")
#: the address the documents write (``make run``'s)
DOCUMENTED_BASE = "http://127.0.0.1:8000"
PASSWORD = "documented horse battery"
SHELLS = ("sh", "bash", "shell")
REQUEST_LINE = re.compile(r"(GET|POST|PUT|PATCH|DELETE) (/api/v1/\S*)")
POLL = re.compile(r'^(?P<command>.*\S)\s+# poll until "(?P<key>\w+)": (?P<value>\S+)\s*$')
#: how long a polled example may take to finish (seconds)
POLL_SECONDS = 120


class MalformedExample(AssertionError):
    """An example the test cannot run as written; the message names the document and the line."""


@dataclass(frozen=True)
class Block:
    document: str
    line: int  # the line of the block's first content line (1-based)
    info: str
    lines: tuple[str, ...]

    def where(self, offset: int = 0) -> str:
        return f"{self.document}:{self.line + offset}"


@dataclass(frozen=True)
class Example:
    """One request example: a curl command (its logical line of a shell block) or a METHOD /path block."""

    block: Block
    offset: int  # the example's first line within the block
    count: int  # its number of lines
    text: str

    def where(self) -> str:
        return self.block.where(self.offset)


def fenced_blocks(document: str) -> list[Block]:
    """The document's fenced code blocks; one left open is an error naming its line."""
    lines = (ROOT / document).read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        opening = re.match(r"^(\s*)```(\S*)\s*$", lines[i])
        if not opening:
            i += 1
            continue
        start = i + 1
        end = next((j for j in range(start, len(lines)) if lines[j].strip() == "```"), None)
        if end is None:
            raise MalformedExample(f"{document}:{i + 1}: a code block that is never closed")
        blocks.append(Block(document, start + 1, opening.group(2), tuple(lines[start:end])))
        i = end + 1
    return blocks


def _complete(text: str) -> bool:
    """Whether ``text`` ends a shell command: no backslash continuation, no quote left open."""
    if text.endswith("\\"):
        return False
    try:
        shlex.split(text, comments=True)
    except ValueError:
        return False
    return True


def logical_lines(block: Block) -> list[tuple[int, int, str]]:
    """(offset of its first line, number of lines, text) of each command of a shell block: lines joined across
    backslash continuations and quoted strings that span lines."""
    out, current, first = [], [], 0
    for offset, line in enumerate(block.lines):
        if not current:
            first = offset
        current.append(line)
        if _complete("\n".join(current)):
            out.append((first, len(current), "\n".join(current)))
            current = []
    if current:
        raise MalformedExample(f"{block.where(first)}: a command (or a quoted string) continued past the end of its "
                               "block")
    return out


def is_example_block(block: Block) -> bool:
    if block.info in SHELLS and any(re.search(r"\bcurl\b", line) for line in block.lines):
        return True
    if block.lines and REQUEST_LINE.match(block.lines[0].strip()):
        return True
    if any("/api/v1/" in line for line in block.lines):  # an HTTP example in a form this module cannot run
        raise MalformedExample(f"{block.where()}: a block naming /api/v1/ that is neither a shell block with curl "
                               "commands nor 'METHOD /api/v1/…' followed by JSON")
    return False


def request_block(block: Block) -> tuple[str, str, dict | None]:
    """(method, path, body) of a ``METHOD /api/v1/…`` block: the JSON body must parse."""
    if block.info not in ("json", "http"):
        raise MalformedExample(f"{block.where()}: a request example in a ```{block.info} block (use json or http)")
    match = REQUEST_LINE.fullmatch(block.lines[0].strip())
    if not match:
        raise MalformedExample(f"{block.where()}: the first line must be 'METHOD /api/v1/…', not {block.lines[0]!r}")
    text = "\n".join(block.lines[1:]).strip()
    if not text:
        return match.group(1), match.group(2), None
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        first = next(i for i, line in enumerate(block.lines) if i > 0 and line.strip())
        raise MalformedExample(f"{block.where(first + exc.lineno - 1)}: the request body is not JSON: {exc.msg}") \
            from None
    return match.group(1), match.group(2), body


def curl_examples(block: Block) -> list[Example]:
    """The curl commands of a shell block; each must name an API URL."""
    found = []
    for offset, count, text in logical_lines(block):
        if text.lstrip().startswith("#") or not re.search(r"\bcurl\b", text):
            continue
        for call in re.findall(r"\bcurl\b[^|)]*", text):
            try:
                words = shlex.split(call.replace("\\\n", " "), comments=True)
            except ValueError as exc:
                raise MalformedExample(f"{block.where(offset)}: the curl command does not parse: {exc}") from None
            urls = [w for w in words if w.startswith(("$API/", "${API}/", f"{DOCUMENTED_BASE}/api/"))]
            if len(urls) != 1:
                raise MalformedExample(f"{block.where(offset)}: a curl command must name one API URL ($API/… or "
                                       f"{DOCUMENTED_BASE}/api/…): {call.strip()!r}")
        found.append(Example(block, offset, count, text))
    return found


def examples(document: str) -> list[Example]:
    """The document's request examples, in order (checked for form: see the module's docstring)."""
    out = []
    for block in fenced_blocks(document):
        if not is_example_block(block):
            continue
        if block.info in SHELLS:
            out.extend(curl_examples(block))
        else:
            request_block(block)
            out.append(Example(block, 0, len(block.lines), "\n".join(block.lines)))
    return out


# --- the bash session ----------------------------------------------------------------------------------------------

PRELUDE = r"""set -Eeuo pipefail
exec {trace}>"$DOCS_TRACE"; BASH_XTRACEFD=$trace; PS4='+${LINENO} '
curl() {  # every call must answer 2xx; the line of the script that made it is logged
  command curl --fail-with-body -sS \
    -w "%{stderr}CURL ${BASH_LINENO[-2]} %{http_code} %{method} %{url_effective}\n" "$@"
}
poll_until() {  # poll_until KEY VALUE COMMAND...: repeat COMMAND until its answer's KEY is VALUE, then succeeded
  local key=$1 want=$2 body
  shift 2
  for _ in $(seq 1 $((DOCS_POLL_SECONDS * 4))); do
    body=$("$@")
    if [ "$(jq -c ".$key" <<<"$body")" = "$want" ]; then
      jq -e '(.status // "succeeded") == "succeeded"' <<<"$body" >/dev/null || { echo "WORK FAILED $body" >&2; return 1; }
      printf '%s\n' "$body"
      return 0
    fi
    sleep 0.25
  done
  echo "STILL NOT $key=$want after $DOCS_POLL_SECONDS s: $body" >&2
  return 1
}
set -x
"""


@dataclass
class Script:
    text: str
    origin: dict[int, str]  # script line -> "document:line"
    sites: dict[int, Example]  # the script line where each example starts -> the example
    spans: list[tuple[int, int, Example]]  # (first, last script line, example)


def build_script(document: str, base: str, bodies: Path) -> Script:
    """The document's example blocks as one bash script, each line remembering where it comes from."""
    lines = PRELUDE.splitlines()
    origin: dict[int, str] = {}
    sites: dict[int, Example] = {}
    spans: list[tuple[int, int, Example]] = []
    by_block: dict[Block, list[Example]] = {}
    for example in examples(document):
        by_block.setdefault(example.block, []).append(example)
    for block, block_examples in by_block.items():
        if block.info not in SHELLS:  # METHOD /path + JSON: sent with the session's $H
            method, path, body = request_block(block)
            data = ""
            if body is not None:
                (bodies / f"{block.line}.json").write_text(json.dumps(body))
                data = f" -H 'Content-Type: application/json' --data-binary @{bodies / f'{block.line}.json'}"
            lines.append(f'curl -s -H "$H" -X {method} "{base}{path}"{data} >/dev/null')
            origin[len(lines)] = block.where()
            sites[len(lines)] = block_examples[0]
            spans.append((len(lines), len(lines), block_examples[0]))
            continue
        first = len(lines) + 1  # the block, line for line
        for offset, line in enumerate(block.lines):
            line = line.replace(DOCUMENTED_BASE, base)
            poll = POLL.match(line)
            if poll:
                line = f"poll_until {poll['key']} {shlex.quote(poll['value'])} {poll['command']}"
            lines.append(line)
            origin[len(lines)] = block.where(offset)
        for example in block_examples:
            sites[first + example.offset] = example
            spans.append((first + example.offset, first + example.offset + example.count - 1, example))
    return Script("\n".join(lines) + "\n", origin, sites, spans)


def run_script(script: Script, document: str, workdir: Path, env: dict) -> list[tuple[int, int, str, str]]:
    """Run it; on failure, the document's line it stopped at.  Returns the curl calls: (line, status, method, url)."""
    path = workdir / f"{Path(document).stem}.sh"
    path.write_text(script.text)
    trace = workdir / f"{Path(document).stem}.trace"
    done = subprocess.run(["bash", str(path)], cwd=workdir, env=dict(env, DOCS_TRACE=str(trace)),
                          capture_output=True, text=True, timeout=300)
    calls = [(int(m[1]), int(m[2]), m[3], m[4])
             for m in re.finditer(r"^CURL (\d+) (\d+) (\S+) (\S+)$", done.stderr, re.M)]
    if done.returncode != 0:
        reached = [int(m) for m in re.findall(r"^\++(\d+) ", trace.read_text(), re.M) if int(m) in script.origin]
        line = reached[-1] if reached else 0
        raise AssertionError(f"{script.origin.get(line, document)}: the example failed (exit {done.returncode})\n"
                             f"--- stderr:\n{done.stderr[-3000:]}\n--- stdout:\n{done.stdout[-2000:]}")
    return calls


# --- the world the documents assume ----------------------------------------------------------------------------------

@pytest.fixture
def documented_world(catalogue, django_user_model, settings):
    from apps import settings as project_settings
    from apps.accounts.models import Membership, Role, Workspace
    from apps.accounts.workspaces import personal_workspace

    settings.MEDIA_ROOT = project_settings.MEDIA_ROOT  # the worker keeps reports and uploads there
    demo = django_user_model.objects.create_superuser(username="demo", password=PASSWORD)
    lead = django_user_model.objects.create_user(username="lead", password=PASSWORD)
    django_user_model.objects.create_user(username="grace", password=PASSWORD)
    team = Workspace.objects.create(name="Survey team", slug="survey-team")
    Membership.objects.create(workspace=team, user=lead, role=Role.ADMIN)
    Membership.objects.create(workspace=team, user=demo, role=Role.EDITOR)
    personal_workspace(demo)
    return {"demo": demo, "team": team}


@pytest.fixture
def workdir(tmp_path) -> Path:
    """Where the examples run: ``.venv/bin/python`` is this interpreter, ``manage.py`` and ``fixtures/`` the
    project's (a download lands here)."""
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    python = tmp_path / ".venv" / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    python.chmod(0o755)
    (tmp_path / "manage.py").symlink_to(ROOT / "manage.py")
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    (tmp_path / "bodies").mkdir()
    return tmp_path


def _environment() -> dict:
    from django.db import connection

    db = connection.settings_dict
    return dict(os.environ, PASSWORD=PASSWORD, DOCS_POLL_SECONDS=str(POLL_SECONDS), DJANGO_SETTINGS_MODULE="apps.settings",
                DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}")


def _jobs_left() -> list[str]:
    """The jobs not finished yet (an empty list once every one has)."""
    from apps.profiles.models import ProfileImport
    from apps.reports.models import Report
    from apps.scenarios.models import SimulationRun

    finished = ("succeeded", "failed", "cancelled")
    return [f"{model.__name__} {pk}: {status}" for model in (SimulationRun, Report, ProfileImport)
            for pk, status in model.objects.exclude(status__in=finished).values_list("pk", "status")]


# --- the tests -------------------------------------------------------------------------------------------------------

def test_the_documents_hold_request_examples_in_a_form_that_runs():
    """Cheap and without a server: a malformed example fails here first, naming its document and line."""
    counted = {document: len(examples(document)) for document in DOCUMENTS}
    assert all(counted.values()), f"a document lost its examples: {counted}"


def test_a_malformed_example_is_named_by_document_and_line(tmp_path, monkeypatch):
    document = tmp_path / "bad.md"
    document.write_text('text\n\n```json\nPOST /api/v1/scenarios/\n{"name": "x",\n "workload": }\n```\n')
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    with pytest.raises(MalformedExample, match=r"^bad\.md:6: the request body is not JSON"):
        examples("bad.md")
    document.write_text("```sh\ncurl -s -H \"$H\" /scenarios/\n```\n")
    with pytest.raises(MalformedExample, match=r"^bad\.md:2: a curl command must name one API URL"):
        examples("bad.md")
    document.write_text("```text\nGET /api/v1/scenarios/ then look\n```\n")
    with pytest.raises(MalformedExample, match=r"^bad\.md:2: a request example in a ```text block"):
        examples("bad.md")


def test_a_request_that_fails_is_named_by_document_and_line(tmp_path, monkeypatch):
    """Nothing listens on port 9: the second example's curl fails, and the failure names its line."""
    (tmp_path / "bad.md").write_text("```sh\nAPI=http://127.0.0.1:9/api/v1\ntrue    # not a request\n"
                                     "curl -s $API/workspaces/ | jq .\n```\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    script = build_script("bad.md", "http://127.0.0.1:9", tmp_path)
    with pytest.raises(AssertionError, match=r"^bad\.md:4: the example failed"):
        run_script(script, "bad.md", tmp_path, dict(os.environ, DOCS_POLL_SECONDS="1"))


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_every_documented_request_answers_2xx_and_its_work_succeeds(celery_worker_process, live_server,
                                                                     documented_world, workdir):
    executed = []
    for document in DOCUMENTS:
        script = build_script(document, live_server.url, workdir / "bodies")
        calls = run_script(script, document, workdir, _environment())
        refused = [f"{script.origin[line]}: {status} {method} {url}" for line, status, method, url in calls
                   if not 200 <= status < 300]
        assert not refused, refused
        reached = {next(e for first, last, e in script.spans if first <= line <= last) for line, *_ in calls}
        missed = [e.where() for e in script.sites.values() if e not in reached]
        assert not missed, f"examples that sent no request: {missed}"
        executed += [e.where() for e in script.sites.values()]

    wait_for(lambda: not _jobs_left(), POLL_SECONDS, "every job the examples started to finish")
    _every_job_succeeded()
    _the_documented_scenario_ran_as_placed()
    print(f"\n{len(executed)} documented request examples executed: {', '.join(executed)}")


def _every_job_succeeded():
    from apps.profiles.models import ProfileImport
    from apps.reports.models import Report
    from apps.scenarios.models import SimulationRun

    failed = [f"{model.__name__} {pk}: {status} {error}" for model in (SimulationRun, Report, ProfileImport)
              for pk, status, error in model.objects.values_list("pk", "status", "error")
              if status != "succeeded"]
    assert not failed, failed
    assert Report.objects.exists() and ProfileImport.objects.exists() and SimulationRun.objects.exists()


def _the_documented_scenario_ran_as_placed():
    """The example under "Creating a scenario" (a partial placement on AWS: 10 spot instances for INVERT, the stage's
    default storage) once ended failed on the worker; it runs, INVERT's 120 tasks at most 10 at a time."""
    from apps.scenarios.models import Scenario

    aws = Scenario.objects.get(name="Magnus vs AWS").entries.get(platform__slug="aws-sydney").run
    detailed = [r.result["tasks"] for r in aws.replication_set.all() if "tasks" in r.result]  # the shown ones
    assert detailed
    for tasks in detailed:
        invert = [t for t in tasks if t["stage"] == "invert"]
        assert len(invert) == 120  # one per sub-band
        assert most_at_once(invert) <= 10


def most_at_once(tasks: list[dict]) -> int:
    """The largest number of tasks running at the same time."""
    events = sorted([(t["start_s"], 1) for t in tasks] + [(t["end_s"], -1) for t in tasks], key=lambda e: (e[0], e[1]))
    running = peak = 0
    for _, step in events:
        running += step
        peak = max(peak, running)
    return peak
