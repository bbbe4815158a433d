import Foundation

/// The text of a terminal progress bar: `[########----------]  5/12 pages  2.1/s  ETA 3s`.
///
/// Only the text: `Console.progress` decides whether it is shown (a terminal that can redraw a
/// line, not `--quiet`, not `--json`) and clears it before any other line.
struct ProgressBar {
    let total: Int
    let unit: String
    let started: Date
    static let width = 20

    init(total: Int, unit: String, started: Date = Date()) {
        self.total = max(1, total)
        self.unit = unit
        self.started = started
    }

    func line(done: Int, now: Date = Date()) -> String {
        let done = min(max(0, done), total)
        let filled = done * Self.width / total
        var s = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: Self.width - filled) + "] "
        s += "\(done)/\(total) \(unit)\(total == 1 ? "" : "s")"
        let elapsed = now.timeIntervalSince(started)
        guard done > 0, elapsed > 0 else { return s }
        let rate = Double(done) / elapsed
        s += "  " + (rate >= 10 ? String(Int(rate.rounded())) : String(format: "%.1f", rate)) + "/s"
        if done < total { s += "  ETA " + Self.duration(Double(total - done) / rate) }
        return s
    }

    /// 42s, 3m05s, 1h02m.
    static func duration(_ seconds: Double) -> String {
        let t = Int(seconds.rounded(.up))
        if t < 60 { return "\(t)s" }
        if t < 3600 { return "\(t / 60)m" + String(format: "%02d", t % 60) + "s" }
        return "\(t / 3600)h" + String(format: "%02d", t / 60 % 60) + "m"
    }
}
