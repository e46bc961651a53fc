/// The time axis of a timeline: linear where something happens, and long idle stretches
/// (one request waiting 30 s while everything else took 250 ms) cut down to a short
/// break, so the busy part keeps its width instead of being squashed into a few pixels.
/// Pure: maps nanosecond times to x positions and lists the ticks and breaks to draw.
public struct TimeAxis: Sendable {
    /// One stretch of the axis.
    public struct Segment: Sendable, Hashable {
        /// Start and end time (ns).
        public var start: Int64, end: Int64
        /// Start and end x position.
        public var x0: Double, x1: Double
        /// Whether this is an idle stretch drawn as a break.
        public var isBreak: Bool
    }

    /// The stretches, in time order, covering `t0...t1`.
    public private(set) var segments: [Segment] = []
    /// Width given to each break, in pixels.
    static let breakWidth = 28.0

    /// An axis from `t0` to `t1` over `left...left+width`, with idle gaps between the
    /// `times` (anything drawn: starts, ends, events) longer than a tenth of the span
    /// and than one second drawn as breaks.
    public init(t0: Int64, t1: Int64, times: [Int64], left: Double, width: Double) {
        let t1 = Swift.max(t1, t0 + 1)
        let points = ([t0, t1] + times.filter { $0 >= t0 && $0 <= t1 }).sorted()
        let span = t1 - t0
        let threshold = Swift.max(span / 10, 1_000_000_000)
        let idle = zip(points, points.dropFirst()).filter { $1 - $0 > threshold }
        // A margin of linear time on both sides of each break: a tenth of the busy time,
        // so the busy part keeps most of the width.
        let busy = span - idle.reduce(0) { $0 + ($1.1 - $1.0) }
        let margin = Swift.min(threshold / 4, Swift.max(busy / 10, 1_000_000))
        let gaps = idle.map { ($0.0 + margin, $0.1 - margin) }
        let breaks = Double(gaps.count) * Self.breakWidth
        let linearTime = Double(span - gaps.reduce(0) { $0 + ($1.1 - $1.0) })
        let scale = (width - breaks) / Swift.max(linearTime, 1)
        var x = left
        var t = t0
        for (a, b) in gaps {
            segments.append(Segment(start: t, end: a, x0: x, x1: x + Double(a - t) * scale, isBreak: false))
            x += Double(a - t) * scale
            segments.append(Segment(start: a, end: b, x0: x, x1: x + Self.breakWidth, isBreak: true))
            x += Self.breakWidth
            t = b
        }
        segments.append(Segment(start: t, end: t1, x0: x, x1: left + width, isBreak: false))
    }

    /// The x position of time `t` (clamped to the axis).
    public func x(_ t: Int64) -> Double {
        guard let first = segments.first, let last = segments.last else { return 0 }
        if t <= first.start { return first.x0 }
        if t >= last.end { return last.x1 }
        var lo = 0, hi = segments.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if segments[mid].end < t { lo = mid + 1 } else { hi = mid }
        }
        let s = segments[lo]
        guard s.end > s.start else { return s.x0 }
        return s.x0 + (s.x1 - s.x0) * Double(t - s.start) / Double(s.end - s.start)
    }

    /// Tick times (ns from `t0`, ms step) inside the linear stretches: about one tick per
    /// 90 pixels of the linear scale, at round steps (1, 2, 5 × 10^n ms).
    public func ticks(t0: Int64) -> (stepMillis: Double, times: [Int64]) {
        let linear = segments.filter { !$0.isBreak && $0.end > $0.start }
        guard let s = linear.first else { return (1, []) }
        let nsPerPixel = Double(s.end - s.start) / Swift.max(s.x1 - s.x0, 1)
        let want = nsPerPixel * 90 / 1e6
        var step = 1.0, decade = 1.0
        search: while decade < 1e12 {
            for m in [1.0, 2.0, 5.0] where m * decade >= want {
                step = m * decade
                break search
            }
            decade *= 10
        }
        let stepNs = Int64(step * 1e6)
        var times: [Int64] = []
        for seg in linear {
            var k = (seg.start - t0 + stepNs - 1) / stepNs
            while t0 + k * stepNs <= seg.end && times.count < 400 {
                times.append(t0 + k * stepNs)
                k += 1
            }
        }
        return (step, times)
    }
}
