"""Leagues: rosters, league nights, season standings and the treasurer's sheets (pure domain:
no web, store or service imports)."""
