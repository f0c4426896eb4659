"""The application layer the doors call: the service (operations over a collection),
authorization (tokens, scopes, server paths) and the dashboard's read models."""
