import LNoteFormat
import LNoteShape
import Synchronization

/// Resampled frames of one texture (`Canvas.draw(image:placement:transform:)`), least recently
/// used dropped first, within `budgetBytes` (16 bytes a pixel). Keyed by what the filter's
/// result depends on: the frame's size and rotation in pixels and its position modulo whole
/// pixels; so the same placement drawn again, on another page or at another integer offset,
/// is composited without resampling. Thread-safe: one texture serves all of an export's workers.
public final class ResampleStore: Sendable {
    public let budgetBytes: Int

    struct Key: Hashable {
        let bits: [UInt64]
        let byteCount: Int

        /// Nil for a frame not wholly on the canvas (its clipped box would not be reusable).
        init?(_ frame: ImageFrame, box: PixelBox, canvasWidth: Int, canvasHeight: Int) {
            guard frame.lies(within: canvasWidth, canvasHeight) else { return nil }
            let ox = box.i0, oy = box.j0
            bits = [frame.fw, frame.fh, frame.cosT, frame.sinT, frame.cx - Double(ox), frame.cy - Double(oy)].map(\.bitPattern)
                + [UInt64(box.i1 - box.i0), UInt64(box.j1 - box.j0)]
            byteCount = (box.i1 - box.i0 + 1) * (box.j1 - box.j0 + 1) * 16
        }
    }

    final class Entry: Sendable {
        let width: Int, height: Int
        let values: [SIMD4<Float>]
        init(width: Int, height: Int, values: [SIMD4<Float>]) { self.width = width; self.height = height; self.values = values }
    }

    private struct State {
        var frames: LRUCache<Key, Entry>
        var hits = 0
    }
    private let state: Mutex<State>

    public init(budgetBytes: Int) {
        self.budgetBytes = max(0, budgetBytes)
        state = Mutex(State(frames: LRUCache(budget: self.budgetBytes)))
    }

    /// Draws served from the store so far.
    public var hits: Int { state.withLock { $0.hits } }
    /// Bytes of resampled frames kept now.
    public var bytesHeld: Int { state.withLock { $0.frames.held } }

    func entry(for key: Key) -> Entry? {
        state.withLock { s in
            guard let found = s.frames.value(for: key) else { return nil }
            s.hits += 1
            return found
        }
    }

    /// Keeps `entry` (if it fits) and returns the one kept for `key` (another thread's, when
    /// two resampled the same frame at once: the same pixels).
    func insert(_ entry: Entry, for key: Key) -> Entry {
        state.withLock { s in
            if let existing = s.frames.peek(key) { return existing }
            s.frames.insert(entry, cost: entry.values.count * 16, for: key)
            return entry
        }
    }
}
