// Tests for LNoteFormat.
