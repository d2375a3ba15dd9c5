"""Server-rendered pages: a thin layer over the same services as the JSON API."""
