"""Helpers shared by the tests of several areas (one copy instead of one per test file)."""
