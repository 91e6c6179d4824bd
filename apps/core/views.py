"""Health check and the site icon at the address browsers ask for on their own."""

from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponsePermanentRedirect, JsonResponse
from django.templatetags.static import static

from apps.core.services import database_ok


@login_not_required
def health(request):
    ok = database_ok()
    return JsonResponse({"status": "ok" if ok else "degraded", "database": ok}, status=200 if ok else 503)


@login_not_required
def favicon(request):
    """Browsers ask for /favicon.ico whatever the page's icon link says (a 404 on every page before): the icon."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))
