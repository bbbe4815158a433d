// lnote-render: the command-line tool (a thin main over LNoteCLI).
