// lnote-gen: deterministic generator of realistic .lnote documents.
