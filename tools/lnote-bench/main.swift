// lnote-bench: release-build benchmarks (run through tools/bench).
