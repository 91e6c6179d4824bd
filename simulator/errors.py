"""Refusals that name the field in error by its path (``platforms[1].options.placements[0].nodes``).

Shared by the scenario contract (:mod:`simulator.contract`) and the model's own checks
(:func:`simulator.model.simulate.check_scenario`), so a refusal keeps its field path from wherever it is raised.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FieldError", "ContractError", "join_path"]


@dataclass(frozen=True)
class FieldError:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ContractError(ValueError):
    """A request the contract refuses; ``errors`` lists each field in error with its path."""

    def __init__(self, errors: list[FieldError] | FieldError | str):
        if isinstance(errors, str):  # a refusal about the request as a whole
            errors = FieldError("", errors)
        self.errors = [errors] if isinstance(errors, FieldError) else list(errors)
        super().__init__("; ".join(str(e) for e in self.errors))

    @classmethod
    def at(cls, path: str, message: str) -> ContractError:
        return cls(FieldError(path, message))

    def under(self, prefix: str) -> ContractError:
        """The same errors with their paths below ``prefix`` (``platforms[1]`` + ``options.x``)."""
        return ContractError([FieldError(join_path(prefix, e.path), e.message) for e in self.errors])

    def as_dict(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for e in self.errors:
            out.setdefault(e.path or "non_field_errors", []).append(e.message)
        return out


def join_path(prefix: str, path: str) -> str:
    if not prefix:
        return path
    if not path:
        return prefix
    return f"{prefix}{path}" if path.startswith("[") else f"{prefix}.{path}"


