"""Home page and health check."""

from django.contrib.auth.decorators import login_not_required
from django.http import JsonResponse
from django.shortcuts import render

from apps.core.models import WorkerHeartbeat
from apps.core.services import database_ok
from apps.platforms.services import visible_platforms
from apps.workloads.models import Workload


def home(request):
    return render(
        request,
        "core/home.html",
        {
            "platforms": visible_platforms(request.user),
            "workloads": Workload.objects.all(),
            "workers": WorkerHeartbeat.objects.all()[:10],
        },
    )


@login_not_required
def health(request):
    ok = database_ok()
    return JsonResponse({"status": "ok" if ok else "degraded", "database": ok}, status=200 if ok else 503)
