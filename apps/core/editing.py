"""What the site's edit pages share: an editor (several forms saved together, all or nothing) and the page's
request cycle — show the forms, save on POST, say what changed and go back to the object's page, or show the forms
again with every refusal beside its field (status 400)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render

__all__ = ["Editor", "saved_message", "edit_page"]


class Editor:
    """Forms saved together: ``forms()`` lists them; ``save(user)`` returns what changed, or None (nothing saved)."""

    def forms(self) -> list:
        raise NotImplementedError

    def is_valid(self) -> bool:
        valid = True
        for form in self.forms():  # every form, so each shows its own errors
            valid &= form.is_valid()
        return bool(valid)

    def save(self, user) -> list[str] | None:
        raise NotImplementedError


def saved_message(changed: list[str]) -> str:
    """"Saved 2 changes: a; b." (or "Saved 0 changes.")."""
    return f"Saved {len(changed)} change{'s' if len(changed) != 1 else ''}" + (
        f": {'; '.join(changed)}." if changed else ".")


def edit_page(request, editor: Editor, template: str, context: dict, done: str):
    """The edit page's answer: on a POST that saves, a message and a redirect to ``done``; else the page (400 when a
    POST was refused)."""
    if request.method == "POST":
        changed = editor.save(request.user)
        if changed is not None:
            messages.info(request, saved_message(changed))
            return redirect(done)
    return render(request, template, {**context, "editor": editor}, status=400 if request.method == "POST" else 200)


def delete_page(request, item, delete, in_use: type[Exception], *, what: str, edit: str, listing: str):
    """The answer to a delete request for ``item`` (a workspace's copy): deleted only when the confirm box was ticked
    and nothing uses it (``delete(item, user=...)`` raises ``in_use`` saying what does); a message either way, back to
    the edit page ``edit`` when refused, else to the list ``listing`` (URL names)."""
    if request.POST.get("confirm") != "yes":
        messages.error(request, f"Not deleted: tick the box to confirm that this {what} is to be deleted.")
        return redirect(edit, item.slug)
    try:
        delete(item, user=request.user)
    except in_use as exc:
        messages.error(request, f"Not deleted: {exc}.")
        return redirect(edit, item.slug)
    messages.info(request, f"{item.name} deleted.")
    return redirect(listing)
