"""capeval.stats."""
