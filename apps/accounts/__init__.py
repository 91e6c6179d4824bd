"""Accounts: login, logout and the demo account."""
