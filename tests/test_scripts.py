"""The script library: every script that writes a memory keeps its access document in step."""

from __future__ import annotations

from houkai.store import scripts


def test_every_writing_script_mirrors_into_the_access_document() -> None:
    for name, source in scripts.WRITING_SCRIPTS.items():
        assert "local m, a = KEYS[1], KEYS[" in source, name
        tail = source[source.rindex("local m, a = ") :]
        # the mirror runs after the script's last write to the memory hash
        assert "redis.call('HSET', KEYS[1]" not in tail and "HINCRBY', KEYS[1]" not in tail, name


def test_every_delete_is_the_one_fragment() -> None:
    fragment = scripts.delete_memory_lua("KEYS[1]", "KEYS[2]", "ARGV[1]", "ARGV[2]", "KEYS[3]")
    assert fragment in scripts.DELETE_LUA
    guarded = scripts.delete_memory_lua("KEYS[1]", "KEYS[2]", "ARGV[2]", "ARGV[3]", "KEYS[3]")
    assert guarded in scripts.DELETE_IF_EXPIRED_LUA


def test_the_library_registers_each_script_once(store) -> None:
    assert store.core.scripts is store.scripts
    assert store.scripts.write.script == scripts.lexstats.WRITE_LUA
    assert len({s.sha for s in vars(store.scripts).values()}) == len(vars(store.scripts))
