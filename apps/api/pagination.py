"""Limit/offset pagination with bounds: a limit above MAX_LIMIT is cut to it, and an offset past any real table is
cut too (PostgreSQL refuses OFFSET beyond a 64-bit integer, which made a 500)."""

from rest_framework.pagination import LimitOffsetPagination


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 500
    #: far beyond any table here, far below PostgreSQL's bigint
    max_offset = 10**12

    def get_offset(self, request):
        return min(super().get_offset(request), self.max_offset)
