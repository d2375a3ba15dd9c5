"""capeval.engines."""
