"""The shipped library loads, and a note survives a dump/parse round trip."""

from bot.library import load_library
from bot.notes import dump_note, parse_note


def test_shipped_library_loads_sixteen_seed_notes():
    library = load_library()
    assert len(library.notes) == 16
    assert [n.id for n in library.notes] == sorted(n.id for n in library.notes)


def test_round_trip_is_identity():
    for note in load_library().notes:
        assert parse_note(dump_note(note), "x.md") == note
