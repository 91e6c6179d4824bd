"""The REST API (Django REST framework): every main job over HTTP with token authentication."""
