/// SVG path data read back into absolute sub-paths, for tests that look inside the paths the
/// vector writers produce: absolute and relative `M`/`L`/`C`/`Z`, implicit repeated commands
/// and numbers separated by a space, a comma or their own sign (the syntax of SVG 1.1 §8.3
/// that those writers use; `H`, `V`, `S`, `Q`, `T` and `A` are not read).
public struct SVGPathData: Sendable {
    public enum Segment: Sendable, Equatable {
        case line(Point)
        case curve(Point, Point, Point)
        public var end: Point {
            switch self { case .line(let p): p; case .curve(_, _, let p): p }
        }
    }

    public struct Point: Sendable, Equatable {
        public var x: Double, y: Double
        public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    }

    public struct SubPath: Sendable {
        public var start: Point
        public var segments: [Segment]
        public var closed: Bool

        /// The sub-path with each cubic flattened into `chords` chords.
        public func polygon(chords: Int = 16) -> [(Double, Double)] {
            var out = [(start.x, start.y)]
            var from = start
            for segment in segments {
                switch segment {
                case .line(let p): out.append((p.x, p.y))
                case .curve(let c1, let c2, let p):
                    for k in 1...chords {
                        let t = Double(k) / Double(chords), u = 1 - t
                        out.append((u * u * u * from.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * p.x,
                                    u * u * u * from.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * p.y))
                    }
                }
                from = segment.end
            }
            return out
        }

        /// The sub-path as absolute path data (`M … L … C … Z`).
        public var absoluteText: String {
            func n(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
            var s = "M\(n(start.x)) \(n(start.y))"
            for segment in segments {
                switch segment {
                case .line(let p): s += "L\(n(p.x)) \(n(p.y))"
                case .curve(let a, let b, let p): s += "C\(n(a.x)) \(n(a.y)) \(n(b.x)) \(n(b.y)) \(n(p.x)) \(n(p.y))"
                }
            }
            return closed ? s + "Z" : s
        }
    }

    public enum ParseError: Error, Equatable { case unexpected(Character), missingNumbers(Character) }

    public var subPaths: [SubPath] = []

    public init(_ text: String) throws {
        var numbers: [Double] = []
        var command: Character? = nil
        var current = Point(0, 0)
        var token = ""
        var pathStart = Point(0, 0)

        func flushToken() {
            if !token.isEmpty, let v = Double(token) { numbers.append(v) }
            token = ""
        }
        /// Applies `command` to the numbers read since it, repeating it as SVG does.
        func apply() throws {
            guard let c = command else { return }
            let relative = c.isLowercase
            func point(_ i: Int, from base: Point) -> Point {
                relative ? Point(base.x + numbers[i], base.y + numbers[i + 1]) : Point(numbers[i], numbers[i + 1])
            }
            switch c.lowercased() {
            case "z":
                if !subPaths.isEmpty { subPaths[subPaths.count - 1].closed = true }
                current = pathStart
            case "m", "l":
                guard numbers.count >= 2, numbers.count % 2 == 0 else { throw ParseError.missingNumbers(c) }
                var i = 0
                if c.lowercased() == "m" {
                    current = point(0, from: current)
                    pathStart = current
                    subPaths.append(SubPath(start: current, segments: [], closed: false))
                    i = 2
                }
                while i < numbers.count {
                    current = point(i, from: current)
                    subPaths[subPaths.count - 1].segments.append(.line(current))
                    i += 2
                }
            case "c":
                guard !numbers.isEmpty, numbers.count % 6 == 0 else { throw ParseError.missingNumbers(c) }
                for i in stride(from: 0, to: numbers.count, by: 6) {
                    let a = point(i, from: current), b = point(i + 2, from: current), p = point(i + 4, from: current)
                    subPaths[subPaths.count - 1].segments.append(.curve(a, b, p))
                    current = p
                }
            default:
                throw ParseError.unexpected(c)
            }
            numbers = []
        }

        for ch in text {
            if "MmLlCcZz".contains(ch) {
                flushToken(); try apply(); command = ch
            } else if ch == " " || ch == "," || ch == "\n" {
                flushToken()
            } else if ch == "-" || ch == "+" {
                if let last = token.last, last == "e" || last == "E" { token.append(ch) } else { flushToken(); token.append(ch) }
            } else if ch.isNumber || ch == "." || ch == "e" || ch == "E" {
                token.append(ch)
            } else {
                throw ParseError.unexpected(ch)
            }
        }
        flushToken(); try apply()
    }
}
