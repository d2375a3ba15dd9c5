"""capeval.server."""
