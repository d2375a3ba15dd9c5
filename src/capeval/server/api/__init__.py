"""The HTTP layer: middleware, dependencies, the error mapping, and one JSON router per area."""
