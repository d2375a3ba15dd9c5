"""capeval.ranking."""
