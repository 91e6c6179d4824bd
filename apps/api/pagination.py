"""Limit/offset pagination with bounds: ``limit`` a whole number from 1 to ``max_limit``, ``offset`` one from 0 to
``max_offset`` (far past any real table, far below PostgreSQL's bigint, which refused larger OFFSETs with a 500);
anything else is a 400 naming the parameter, as the schema documents — not silently replaced by the default."""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination

__all__ = ["BoundedLimitOffsetPagination"]


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 500
    #: far beyond any table here, far below PostgreSQL's bigint
    max_offset = 10**12

    def _bounded(self, request, name: str, low: int, high: int, default: int) -> int:
        raw = request.query_params.get(name)
        if raw is None:
            return default
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 13 and low <= int(raw) <= high):
            raise ValidationError({name: [f"a whole number from {low} to {high}"]})
        return int(raw)

    def get_limit(self, request):
        return self._bounded(request, self.limit_query_param, 1, self.max_limit, self.default_limit)

    def get_offset(self, request):
        return self._bounded(request, self.offset_query_param, 0, self.max_offset, 0)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for p in parameters:
            if p["name"] == self.limit_query_param:
                p["schema"].update(minimum=1, maximum=self.max_limit, default=self.default_limit)
            elif p["name"] == self.offset_query_param:
                p["schema"].update(minimum=0, maximum=self.max_offset, default=0)
        return parameters
