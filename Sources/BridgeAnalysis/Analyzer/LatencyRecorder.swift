import Histogram

/// One slow request, kept as an example.
public struct LatencySample: Sendable, Hashable {
    /// The request's correlationId.
    public var correlationId: String
    /// Its connection.
    public var connection: String
    /// Request to final response, in microseconds.
    var micros: Int64
    /// The request's record number.
    public var record: Int
    /// The session it comes from, in aggregate statistics (nil inside one session's report).
    public var source: String?
}

/// One bar of a latency histogram: requests whose latency is at most `upperMillis`
/// and above the previous bucket's bound.
public struct LatencyBucket: Sendable, Hashable {
    /// The bucket's upper bound in milliseconds (inclusive); `nil` for the last,
    /// unbounded bucket.
    var upperMillis: Int64?
    /// Requests in the bucket.
    public var count: Int
}

/// Latency statistics of one action, request to final response.
public struct ActionLatency: Sendable, Hashable {
    /// The action.
    public var action: String
    /// Requests answered.
    public var count: Int
    /// Percentiles and maximum, in microseconds (HdrHistogram, 3 significant digits).
    public var p50: Int64, p90: Int64, p99: Int64, max: Int64
    /// The slowest requests, slowest first.
    public var slowest: [LatencySample]
    /// Counts per fixed bucket (``LatencyRecorder/bucketBounds``).
    public var buckets: [LatencyBucket]
    /// The full histogram (microseconds), for merging across sessions.
    public var histogram: Histogram<UInt64>

    /// Equality ignores the histogram's internal layout, comparing the statistics.
    public static func == (a: ActionLatency, b: ActionLatency) -> Bool {
        a.action == b.action && a.count == b.count && a.p50 == b.p50 && a.p90 == b.p90 && a.p99 == b.p99
            && a.max == b.max && a.slowest == b.slowest && a.buckets == b.buckets
    }

    /// Hashes the statistics (consistent with `==`).
    public func hash(into h: inout Hasher) {
        h.combine(action); h.combine(count); h.combine(max); h.combine(slowest)
    }
}

/// Collects latencies per action in fixed memory: one HdrHistogram, fixed buckets and
/// the few slowest examples per action.
struct LatencyRecorder {
    /// Histogram bucket upper bounds in milliseconds; a last bucket holds the rest.
    static let bucketBounds: [Int64] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000,
                                        30_000, 60_000, 120_000, 300_000]

    struct PerAction {
        /// Sized for 2^24 µs (16.8 s) from the start and auto-resizing past it: growing
        /// one bucket at a time from the smallest size (hdrhistogram-swift appends through
        /// an unspecialized generic path) was 58% of the CPU of a fleet of small sessions.
        var histogram: Histogram<UInt64> = {
            var h = Histogram<UInt64>(highestTrackableValue: 1 << 24, numberOfSignificantValueDigits: .three)
            h.autoResize = true
            return h
        }()
        var buckets = [Int](repeating: 0, count: LatencyRecorder.bucketBounds.count + 1)
        var slowest: [LatencySample] = []
        var count = 0

        mutating func add(_ sample: LatencySample, keepSlowest: Int) {
            let micros = sample.micros
            _ = histogram.record(UInt64(micros))
            count += 1
            let ms = (micros + 999) / 1_000
            buckets[LatencyRecorder.bucketBounds.firstIndex { ms <= $0 } ?? LatencyRecorder.bucketBounds.count] += 1
            if keepSlowest > 0, slowest.count < keepSlowest || micros > slowest.last!.micros {
                let at = slowest.firstIndex { $0.micros < micros } ?? slowest.count
                slowest.insert(sample, at: at)
                if slowest.count > keepSlowest { slowest.removeLast() }
            }
        }
    }

    var actions: [String: PerAction] = [:]
    let keepSlowest: Int
    let maxActions: Int

    /// Where actions past `maxActions` are counted.
    static let otherActions = "(other actions)"

    init(keepSlowest: Int, maxActions: Int = 1_000) {
        self.keepSlowest = keepSlowest
        self.maxActions = maxActions
    }

    /// Records one request's latency (negative values, from clock skew, count as 0).
    mutating func record(action: String, nanos: Int64, correlationId: String, connection: String, record: Int) {
        let micros = Swift.max(0, nanos / 1_000)
        let sample = LatencySample(correlationId: correlationId, connection: connection, micros: micros, record: record)
        let key = actions[action] != nil || actions.count < maxActions ? action : Self.otherActions
        // Mutated in place through the dictionary, so the histogram is never copied.
        actions[key, default: PerAction()].add(sample, keepSlowest: keepSlowest)
    }

    /// The statistics, sorted by action.
    func report() -> [ActionLatency] {
        actions.keys.sorted().map { name in
            Self.statistics(action: name, actions[name]!)
        }
    }

    static func statistics(action: String, _ a: PerAction) -> ActionLatency {
        var buckets: [LatencyBucket] = []
        for (i, c) in a.buckets.enumerated() {
            buckets.append(LatencyBucket(upperMillis: i < bucketBounds.count ? bucketBounds[i] : nil, count: c))
        }
        let h = a.histogram
        let p = percentiles(h, [50, 90, 99])
        return ActionLatency(action: action, count: a.count,
                             p50: Int64(p[0]), p90: Int64(p[1]),
                             p99: Int64(p[2]), max: Int64(h.maxRecorded),
                             slowest: a.slowest, buckets: buckets, histogram: h)
    }

    /// What `valueAtPercentile` returns for each of `levels` (ascending, 0 < level < 100),
    /// in one pass through hdrhistogram-swift's inlinable iterator, which is specialized
    /// here: `valueAtPercentile` runs as unspecialized generic code, one pass per level
    /// (60% of the CPU of a fleet of small sessions). Held to it by `FleetTests`.
    static func percentiles(_ h: Histogram<UInt64>, _ levels: [Double]) -> [UInt64] {
        var out = [UInt64](repeating: 0, count: levels.count)
        guard h.totalCount > 0 else { return out }
        let targets = levels.map { level -> UInt64 in
            let requested = Swift.min(Swift.max(level.nextDown, 0.0), 100.0)
            return Swift.max(1, UInt64((requested * Double(h.totalCount) / 100.0).rounded(.up)))
        }
        var next = 0
        for v in h.allValues() {
            while next < targets.count && v.totalCountToThisValue >= targets[next] {
                out[next] = Swift.max(Swift.min(v.value, h.maxRecorded), h.min)
                next += 1
            }
            if next == targets.count { break }
        }
        return out
    }

    /// Merges several sessions' statistics per action (histograms added, buckets summed,
    /// slowest examples re-ranked).
    static func merge(_ reports: [AnalysisReport], keepSlowest: Int) -> [ActionLatency] {
        var merged: [String: PerAction] = [:]
        for r in reports {
            for var l in r.latency {
                for i in l.slowest.indices where l.slowest[i].source == nil { l.slowest[i].source = r.source }
                var a = merged[l.action] ?? PerAction()
                a.histogram.add(l.histogram)
                a.count += l.count
                for (i, b) in l.buckets.enumerated() where i < a.buckets.count { a.buckets[i] += b.count }
                a.slowest = Array((a.slowest + l.slowest).sorted { $0.micros > $1.micros }.prefix(keepSlowest))
                merged[l.action] = a
            }
        }
        return merged.keys.sorted().map { statistics(action: $0, merged[$0]!) }
    }
}
