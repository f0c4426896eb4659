"""Redis access: key layout, the RediSearch schema, filter clauses, connections,
the embedded Redis Stack server and the journal streams."""
