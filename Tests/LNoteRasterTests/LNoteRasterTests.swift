// Tests for LNoteRaster.
