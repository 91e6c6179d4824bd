"""JSON error pages under ``/api/``: a path no route matches, a bad request Django refuses before any view, and a
server error answer ``{"detail": …}`` as the API's own errors do (docs/api.md), never the site's HTML pages."""

from __future__ import annotations

from django.http import JsonResponse
from django.views import defaults

__all__ = ["page_not_found", "bad_request", "server_error", "permission_denied"]

API_PREFIX = "/api/"


def _is_api(request) -> bool:
    return request.path.startswith(API_PREFIX)


def page_not_found(request, exception):
    if _is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def bad_request(request, exception):
    if _is_api(request):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request, exception):
    if _is_api(request):
        return JsonResponse({"detail": "You do not have permission to perform this action."}, status=403)
    return defaults.permission_denied(request, exception)


def server_error(request):
    if _is_api(request):
        return JsonResponse({"detail": "Server error."}, status=500)
    return defaults.server_error(request)
