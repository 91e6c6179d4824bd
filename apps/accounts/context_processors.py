"""The active workspace, for the page header (looked up only when a template uses it)."""

from django.utils.functional import SimpleLazyObject


def workspace(request):
    if not getattr(getattr(request, "user", None), "is_authenticated", False):
        return {}
    from apps.accounts.workspaces import active_workspace

    return {"active_workspace": SimpleLazyObject(lambda: active_workspace(request))}
