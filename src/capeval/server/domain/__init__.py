"""The server's domain: states, errors and the visibility policy (no web framework, no SQL)."""
