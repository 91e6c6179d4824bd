"""Health check."""

from django.contrib.auth.decorators import login_not_required
from django.http import JsonResponse

from apps.core.services import database_ok


@login_not_required
def health(request):
    ok = database_ok()
    return JsonResponse({"status": "ok" if ok else "degraded", "database": ok}, status=200 if ok else 503)
