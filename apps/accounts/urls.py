from django.contrib.auth import views as auth_views
from django.urls import path

from apps.accounts import views

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(template_name="accounts/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("workspaces/", views.workspace_list, name="workspaces"),
    path("workspaces/switch/", views.workspace_switch, name="workspace_switch"),
    path("workspaces/new/", views.workspace_create, name="workspace_create"),
    path("workspaces/members/add/", views.member_add, name="member_add"),
    path("workspaces/members/remove/", views.member_remove, name="member_remove"),
    path("workspaces/invitations/<int:invitation_id>/accept/", views.invitation_accept, name="invitation_accept"),
    path("workspaces/invitations/<int:invitation_id>/decline/", views.invitation_decline, name="invitation_decline"),
]
