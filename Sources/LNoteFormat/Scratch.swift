/// A growable raw buffer reused across strokes so hot loops never allocate: the points decoder
/// (LNoteFormat), the stroke shape (LNoteShape) and the coverage rasterizer (LNoteRaster) write
/// through it.
///
/// Memory is uninitialised beyond what the user wrote; element types are trivial (numbers and
/// plain structs of numbers). It only grows, to the largest size a stroke needed.
@usableFromInline
package final class Scratch<T> {
    // Read in every hot loop: no dynamic exclusivity check (only `grow` writes them, never
    // while a loop holds the pointer).
    @usableFromInline @exclusivity(unchecked) package private(set) var p: UnsafeMutablePointer<T>
    @exclusivity(unchecked) package private(set) var capacity: Int

    package init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
        self.p = .allocate(capacity: self.capacity)
    }

    deinit { p.deallocate() }

    /// Makes room for `n` elements, keeping the first `keep` ones.
    @inline(__always)
    package func reserve(_ n: Int, keep: Int = 0) {
        if n > capacity { grow(n, keep: keep) }
    }

    @inline(never)
    private func grow(_ n: Int, keep: Int) {
        var c = capacity
        while c < n { c *= 2 }
        let q = UnsafeMutablePointer<T>.allocate(capacity: c)
        if keep > 0 { q.moveInitialize(from: p, count: keep) }
        p.deallocate()
        p = q
        capacity = c
    }
}
