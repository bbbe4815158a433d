// Tests for LNoteCLI.
