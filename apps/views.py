"""The home page: the platforms and workloads a user can pick from and the workers online.  It is the project's, not
one app's (it shows several apps' records), so it lives beside the URL configuration and apps.core imports no app."""

from django.shortcuts import render

from apps.core.models import WorkerHeartbeat
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
