// Module LNoteRaster: see Package.swift for its role. Sources are added by the issue that builds it.
