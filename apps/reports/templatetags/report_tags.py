from django import template

from apps.reports.models import Report

register = template.Library()


@register.simple_tag
def report_formats() -> list[tuple[str, str]]:
    """The export formats as (value, label) pairs, for the export buttons."""
    return list(Report.Format.choices)
