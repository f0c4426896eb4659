"""``python -m houkai.bench.agentsets``: rewrite every agent-memory set's JSON."""

from __future__ import annotations

from . import assistant, coding, engineer, personal, research, support, team, versions

if __name__ == "__main__":
    for module in (coding, personal, team, assistant, engineer, support, research, versions):
        path = module.write()
        print(f"wrote {path}")
    print(f"wrote {personal.write(restate=True)}")
