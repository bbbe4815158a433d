// Tests for LNoteCodecs.
