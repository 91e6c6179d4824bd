"""Every export format, from one document: JSON, CSV (ZIP of tables) and XLSX round-trip; formula injection is
escaped; the PDF renders with the ranked table and the charts (and is rendered to PNG to be looked at)."""

from __future__ import annotations

import copy
import csv
import io
import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from django.test import override_settings
from openpyxl import load_workbook

from apps.reports.render import render_csv, render_html, render_json, render_pdf, render_xlsx
from apps.reports.tables import FORMULA_PREFIXES, report_tables, safe_cell

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def doc(demo_document):
    return copy.deepcopy(demo_document)


def _as_text(value) -> str:
    """How a cell reads back from CSV: escaped, None as empty, numbers as Python prints them."""
    value = safe_cell(value)
    return "" if value is None else str(value)


def test_json_round_trips_exactly(doc):
    assert json.loads(render_json(doc)) == doc


def test_csv_zip_holds_every_table_and_round_trips(doc):
    archive = zipfile.ZipFile(io.BytesIO(render_csv(doc)))
    tables = report_tables(doc)
    assert sorted(archive.namelist()) == sorted([f"{t.name}.csv" for t in tables] + ["recommendation.txt"])
    for table in tables:
        rows = list(csv.reader(io.StringIO(archive.read(f"{table.name}.csv").decode("utf-8-sig"))))
        assert rows[0] == table.columns
        assert rows[1:] == [[_as_text(v) for v in row] for row in table.rows], table.name
    ranking = list(csv.DictReader(io.StringIO(archive.read("ranking.csv").decode("utf-8-sig"))))
    assert [r["platform"] for r in ranking] == [r["platform"] for r in doc["ranking"]]
    assert float(ranking[0]["makespan P50 (h)"]) == pytest.approx(doc["ranking"][0]["makespan_p50_s"] / 3600)
    assert doc["recommendation"]["text"] in archive.read("recommendation.txt").decode()


def test_xlsx_has_a_sheet_per_table_and_round_trips(doc):
    book = load_workbook(io.BytesIO(render_xlsx(doc)))
    tables = report_tables(doc)
    assert book.sheetnames == ["summary"] + [t.name for t in tables]
    for table in tables:
        values = [list(r) for r in book[table.name].iter_rows(values_only=True)]
        assert values[0] == table.columns
        expected = [[safe_cell(v) for v in row] for row in table.rows]
        # floats to 14 digits (the file keeps 15 to 17); an empty text cell reads back as an empty cell
        assert values[1:] == [[pytest.approx(v, rel=1e-14) if isinstance(v, float) else (None if v == "" else v)
                               for v in row] for row in expected], table.name
    summary = dict(book["summary"].iter_rows(values_only=True))
    assert summary["Recommendation"] == doc["recommendation"]["name"]


@pytest.mark.parametrize("payload", ["=HYPERLINK(\"http://x\",\"y\")", "+1+2", "-2+3", "@SUM(A1)", "\tx", "=cmd|'/c calc'!A0"])
def test_text_that_a_spreadsheet_would_run_is_escaped_in_csv_and_xlsx(doc, payload):
    doc = dict(doc, scenario=dict(doc["scenario"], name=payload))
    doc["costs"] = [dict(doc["costs"][0], item=payload, note=payload)] + doc["costs"][1:]
    archive = zipfile.ZipFile(io.BytesIO(render_csv(doc)))
    costs = list(csv.reader(io.StringIO(archive.read("costs.csv").decode("utf-8-sig"))))
    assert costs[1][2] == "'" + payload and costs[1][7] == "'" + payload
    for name in archive.namelist():
        if name.endswith(".csv"):
            for row in csv.reader(io.StringIO(archive.read(name).decode("utf-8-sig"))):
                assert not any(cell.startswith(FORMULA_PREFIXES) and not _is_number(cell) for cell in row), (name, row)
    book = load_workbook(io.BytesIO(render_xlsx(doc)))
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", (sheet.title, cell.coordinate, cell.value)
    assert book["costs"]["C2"].value == "'" + payload
    assert book["summary"]["B1"].value == "'" + payload


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_negative_numbers_stay_numbers(doc):
    rows = [r for r in doc["validation"]["rows"] if r["error_pct"] is not None and r["error_pct"] < 0]
    assert rows
    book = load_workbook(io.BytesIO(render_xlsx(doc)))
    column = [c.value for c in book["validation"]["F"]][1:]
    assert any(isinstance(v, float) and v < 0 for v in column)


def test_html_is_self_contained(doc):
    html = render_html(doc).decode()
    assert "<script src=" not in html and "<link " not in html and "http://" not in html.split("<script>")[0]
    assert 'id="ranking-table"' in html and 'id="report-figures"' in html and "Plotly" in html
    for row in doc["ranking"]:
        assert row["name"] in html


@pytest.mark.skipif(not shutil.which("pdftotext") or not shutil.which("chromium"),
                    reason="needs chromium and poppler-utils (make install installs both)")
def test_the_pdf_has_pages_the_ranked_table_and_the_charts(doc, tmp_path):
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(render_pdf(doc))
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
    assert pages > 1
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "Recommendation:" in text and "Ranked platforms" in text
    first = doc["ranking"][0]["name"]
    assert text.index("Recommendation:") < text.index(first.split(" (")[0])
    for heading in ("Radar of the ranks per criterion", "Cumulative total cost of ownership",
                    "Timeline per platform", "Assumptions and provenance of every input",
                    "Validation against the published measurements"):
        assert heading in text, heading
    # the charts are drawn: the radar's axis labels and the Gantt's stage names are text in the PDF
    assert "Completion time" in text and "Typical IOPS" in text and "invert" in text
    # and they are in colour: render the ranks page to an image and count plotly's coloured pixels
    shots = ROOT / "var" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page = next(i for i, chunk in enumerate(text.split("\f"), start=1) if "Radar of the ranks" in chunk)
    subprocess.run(["pdftoppm", "-r", "60", "-png", "-f", str(page), "-l", str(page), "-singlefile", str(pdf),
                    str(shots / "report-radar-page")], check=True)
    ppm = subprocess.run(["pdftoppm", "-r", "40", "-f", str(page), "-l", str(page), "-singlefile", str(pdf)],
                         capture_output=True, check=True).stdout
    assert _coloured_pixels(ppm) > 500


@pytest.mark.skipif(not shutil.which("pdftoppm") or not shutil.which("chromium"),
                    reason="needs chromium and poppler-utils (make install installs both)")
def test_no_page_of_the_pdf_but_the_last_is_half_blank(doc, tmp_path):
    """Sections flow on from one page to the next: a forced break before the ranks left page 1 a third blank and
    one before the inputs left the validation's last page half blank (47 % filled)."""
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(render_pdf(doc))
    subprocess.run(["pdftoppm", "-r", "20", "-gray", str(pdf), str(tmp_path / "page")], check=True)
    filled = {p.name: _filled(p.read_bytes()) for p in sorted(tmp_path.glob("page-*.pgm"))}
    assert len(filled) > 1
    assert all(f >= 0.5 for f in list(filled.values())[:-1]), filled


def _filled(pgm: bytes) -> float:
    """How far down a binary PGM (P5) page its lowest inked row (a pixel darker than 200 of 255) lies, 0 to 1."""
    magic, size, _maxval, pixels = pgm.split(b"\n", 3)
    assert magic == b"P5"
    width, height = (int(x) for x in size.split())
    rows = [pixels[y * width:(y + 1) * width] for y in range(height)]
    return max((y + 1 for y, row in enumerate(rows) if min(row) < 200), default=0) / height


def _coloured_pixels(ppm: bytes) -> int:
    """Pixels of a binary PPM (P6) whose channels differ by more than 60 (not white, grey or black)."""
    header, rest = ppm.split(b"\n", 3)[:3], ppm.split(b"\n", 3)[3]
    assert header[0] == b"P6"
    width, height = (int(x) for x in header[1].split())
    pixels = rest[: width * height * 3]
    return sum(1 for i in range(0, len(pixels), 3)
               if max(pixels[i:i + 3]) - min(pixels[i:i + 3]) > 60)


SPLIT_PAYLOAD = "Magnus;=1+1;=cmd|' /C calc'!A0"


def _rename(value, old: str, new: str):
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, dict):
        return {k: _rename(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, old, new) for v in value]
    return value


def test_a_name_that_becomes_a_formula_once_split_on_semicolons_is_quoted_and_neutralised(doc):
    """The attack: a platform named ``Magnus;=1+1;=cmd|' /C calc'!A0`` was written unquoted into ranking.csv,
    timeline.csv and inputs.csv; Excel with ``;`` as its list separator splits it into formula cells."""
    name = next(r["name"] for r in doc["ranking"] if r["platform"] == "magnus")
    doc = _rename(doc, name, SPLIT_PAYLOAD)
    archive = zipfile.ZipFile(io.BytesIO(render_csv(doc)))
    seen = set()
    for member in archive.namelist():
        if not member.endswith(".csv"):
            continue
        text = archive.read(member).decode("utf-8-sig")
        if "Magnus;" in text:
            seen.add(member)
        for delimiter in (",", ";", "\t", "|"):  # as a spreadsheet with each list separator reads the file
            for row in csv.reader(io.StringIO(text), delimiter=delimiter):
                for cell in row:
                    assert not cell.startswith(("=", "+", "@")) and not (cell.startswith("-") and not _is_number(cell)), \
                        (member, delimiter, cell)
        for line in text.splitlines():  # and as a reader that ignores quotes altogether
            for piece in re.split(r"[,;\t|]", line):
                assert not piece.strip('"').startswith(("=", "+", "@")), (member, piece)
    assert {"ranking.csv", "timeline.csv", "inputs.csv"} <= seen
    ranking = list(csv.DictReader(io.StringIO(archive.read("ranking.csv").decode("utf-8-sig"))))
    assert "'Magnus;'=1+1;'=cmd|' /C calc'!A0" in [r["name"] for r in ranking]
    assert '"\'Magnus;\'=1+1;' in archive.read("ranking.csv").decode("utf-8-sig")
    book = load_workbook(io.BytesIO(render_xlsx(doc)))
    names = [c.value for c in book["ranking"]["C"]]
    assert "'Magnus;'=1+1;'=cmd|' /C calc'!A0" in names


def test_the_pdf_prints_in_a_worker_process_under_its_job_memory_cap(doc):
    """A worker's pool process caps its address space (SKYPLAN_JOB_MEMORY_MB, a soft RLIMIT_AS) and Chromium,
    which reserves far more address space than it uses, died at start under an inherited cap (SIGTRAP): reports
    in PDF failed on every worker.  Here this process takes the same cap a worker takes (1 GB beyond its size)."""
    import resource

    from apps.core.signals import limit_job_memory

    before = resource.getrlimit(resource.RLIMIT_AS)
    try:
        with override_settings(SKYPLAN_JOB_MEMORY_MB=1000):
            limit_job_memory()
        assert resource.getrlimit(resource.RLIMIT_AS)[0] < 64 * 2**30  # the cap is on
        pdf = render_pdf(doc)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, before)
    assert pdf.startswith(b"%PDF")
