"""Recording a workspace's observations: the checks every entry point (API, pages) applies, then the row."""

from __future__ import annotations

from apps.accounts.models import Workspace
from apps.accounts.workspaces import visible
from apps.calibration.models import Observation
from apps.core.provenance import SOURCE_LABELS, source_errors
from apps.platforms.models import Platform
from apps.workloads.models import Workload

__all__ = ["InvalidObservation", "usable", "record_observation"]


class InvalidObservation(ValueError):
    """Refused input; ``errors`` maps each field to its reasons."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {', '.join(v)}" for k, v in errors.items()))
        self.errors = errors


def usable(queryset, what: str, slug: str, workspace: Workspace, user, errors: dict):
    """The workload or platform ``slug`` if the observation may name it: the reference catalogue's or the
    workspace's own.  One the user cannot see is answered as one that does not exist; one of another workspace of
    theirs is refused, saying to copy it here."""
    obj = visible(queryset, user).filter(slug=slug).first() if user is not None else None
    if obj is None:
        errors[what] = [f"no {what} {str(slug)[:60]!r}"]
    elif obj.workspace_id is not None and obj.workspace_id != workspace.pk:
        errors[what] = [f"{what} {obj.slug!r} belongs to another workspace: copy it into this one to use it here"]
        return None
    return obj


def record_observation(workspace: Workspace, *, label: str, workload: str, platform: str, quantity: str,
                       value_s: float, source: object, stage: str = "", use_for_fitting: bool = True,
                       note: str = "", user) -> Observation:
    """Save one observation in ``workspace`` after checking it all (nothing is saved when any field is refused):
    the workload and platform by slug among those the workspace may use, a stage time naming a stage of the
    workload (and only a stage time naming one), a positive value in seconds, a source as the provenance contract
    has it (a paper, a URL, a measurement, an assumption or a fit)."""
    errors: dict[str, list[str]] = {}
    label = (label or "").strip()
    if not label:
        errors["label"] = ["give the run a short name"]
    w = usable(Workload.objects.prefetch_related("stages"), "workload", workload, workspace, user, errors)
    p = usable(Platform.objects.all(), "platform", platform, workspace, user, errors)
    if quantity not in Observation.Quantity.values:
        errors["quantity"] = [f"one of {', '.join(Observation.Quantity.values)}"]
    stage = (stage or "").strip()
    if quantity == Observation.Quantity.STAGE_TIME:
        names = [s.name for s in w.stages.all()] if w is not None else None
        if not stage:
            errors["stage"] = ["a stage time names its stage"]
        elif names is not None and stage not in names:
            errors["stage"] = [f"the workload has no stage {stage[:60]!r} (stages: {', '.join(names) or 'none'})"]
    elif stage:
        errors["stage"] = ["only a stage time names a stage"]
    if not (isinstance(value_s, (int, float)) and value_s > 0):
        errors["value"] = ["a positive time, e.g. '7 min'"]
    problems = source_errors(source)
    if not problems and source.get("kind") not in SOURCE_LABELS:
        problems = [f"source kind {source.get('kind')!r} is not one of {', '.join(SOURCE_LABELS)}"]
    if problems:
        errors["source"] = problems
    if errors:
        raise InvalidObservation(errors)
    return Observation.objects.create(workspace=workspace, label=label, workload=w, platform=p, quantity=quantity,
                                      stage=stage, value=float(value_s), source=source,
                                      use_for_fitting=bool(use_for_fitting), note=note or "", created_by=user)
