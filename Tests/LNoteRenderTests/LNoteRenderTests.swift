// Tests for LNoteRender.
